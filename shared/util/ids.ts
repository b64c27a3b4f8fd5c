/** Random identifiers and credentials. All come from the platform CSPRNG. */
const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `length` base62 characters; 22 carry more than 128 bits. */
export function randomBase62(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
  let out = "";
  for (const b of bytes) {
    if (b >= 248) continue; // 248 = 62 * 4: reject the tail so every character is equally likely
    out += alphabet[b % 62];
    if (out.length === length) return out;
  }
  return out + randomBase62(length - out.length);
}

/** A prefixed public id such as `acc_...`; 20 base62 characters (about 119 bits). */
export const newId = (prefix: "acc" | "slt" | "ses" | "wsp" | "prj" | "key" | "snp" | "hit" | "op") =>
  `${prefix}_${randomBase62(20)}`;

/** Account session token: 256 bits and more (43 base62 characters). */
export const newSessionToken = () => `sps_${randomBase62(43)}`;

/** Runtime key `spk_<env>_<random>` with 190 bits of randomness. */
/** A named operator's token (docs/api-rules.md#operators): 256 bits, shown once, stored as its SHA-256. */
export const newOperatorToken = () => `spo_${randomBase62(43)}`;
export const newRuntimeKey = (environment: string) => `spk_${environment}_${randomBase62(32)}`;
