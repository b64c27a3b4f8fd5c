/** Hashes for secrets at rest. High-entropy credentials need no slow KDF: SHA-256 is enough. */
export function sha256Hex(value: string): string {
  return new Bun.CryptoHasher("sha256").update(value).digest("hex");
}
