/** Hashes for secrets at rest. High-entropy credentials need no slow KDF: SHA-256 is enough. */
export function sha256Hex(value: string): string {
  return new Bun.CryptoHasher("sha256").update(value).digest("hex");
}

/** UTF-8 byte length of a field as the contract measures it: `JSON.stringify(field)`. */
export function jsonByteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
}
