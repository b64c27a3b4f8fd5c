import { fail } from "../../shared/contract/errors.ts";

const printableAscii = /^[\x20-\x7e]{1,255}$/;

/** Bits a key's characters carry at most: the smallest standard alphabet holding them all. */
const alphabets: [RegExp, number][] = [
  [/^[0-9a-f]+$/i, 4], // hex
  [/^[A-Z2-7]+$/i, 5], // base32
  [/^[0-9A-Za-z]+$/, Math.log2(62)], // alphanumeric
  [/^[0-9A-Za-z_-]+$/, 6], // base64url
];
const printableBits = Math.log2(95);
export const secretKeyBits = 128;

/** A key's nominal randomness: its length times log2 of its alphabet's size (docs/api-rules.md#idempotent-retries). */
export const nominalBits = (key: string) => key.length * (alphabets.find(([re]) => re.test(key))?.[1] ?? printableBits);

/**
 * The request's Idempotency-Key (docs/api-rules.md#idempotent-retries): 1 to 255 printable ASCII characters.
 * On a route without a session its scope is the runtime key every player shares, and a replay may hand
 * out a session token: there the key is a secret of at least 128 bits (a UUID v4, 32 hex digits).
 */
export function idempotencyKeyOf(headers: Headers, secret: boolean): string | undefined {
  const key = headers.get("idempotency-key");
  if (key === null) return undefined;
  if (!printableAscii.test(key)) {
    throw fail.invalidRequest([
      { path: "header.Idempotency-Key", message: "must be 1 to 255 printable ASCII characters" },
    ]);
  }
  if (secret && nominalBits(key) < secretKeyBits) {
    const message = `must carry at least ${secretKeyBits} bits of randomness on this route (length x log2 of its alphabet: 32 hex digits or a UUID v4)`;
    throw fail.invalidRequest([{ path: "header.Idempotency-Key", message }]);
  }
  return key;
}
