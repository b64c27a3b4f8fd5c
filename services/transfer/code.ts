import { createHmac } from "node:crypto";

/** Crockford's base32: no I, L, O or U, so a code read aloud or typed is hard to get wrong. */
const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const length = 10; // 50 bits

/** A new code, 10 characters from the platform CSPRNG. */
export function newTransferCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => alphabet[b & 31]).join(""); // 256 is a multiple of 32: no bias
}

/** How a player sees it: `XXXXX-XXXXX`. */
export const formatTransferCode = (code: string) => `${code.slice(0, 5)}-${code.slice(5)}`;

/**
 * What the player typed, as a code: case, spaces and hyphens do not matter, and the letters Crockford
 * reads as digits (O as 0; I and L as 1) are read that way. Null when it cannot be a code.
 */
export function normalizeTransferCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
  return code.length === length && [...code].every((c) => alphabet.includes(c)) ? code : null;
}

/**
 * The stored form: a keyed hash, bound to the environment, so a leaked table cannot be searched for
 * codes without the key, and a code of one environment is unknown in every other.
 */
export const hashTransferCode = (secret: string, envId: string, code: string) =>
  createHmac("sha256", secret).update(`${envId}\n${code}`).digest("hex");
