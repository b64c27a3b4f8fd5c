import { type JWTVerifyGetKey, createRemoteJWKSet } from "jose";

/**
 * The providers' public key sets, one cache per URL: kept at most 10 minutes, fetched again at once
 * for a token whose `kid` is unknown (a rotation), but not more often than the cooldown allows.
 */
export function createKeySets(options: { cacheMaxAgeMs?: number; cooldownMs?: number; timeoutMs?: number } = {}) {
  const sets = new Map<string, JWTVerifyGetKey>();
  return {
    get(url: string): JWTVerifyGetKey {
      let set = sets.get(url);
      if (!set) {
        set = createRemoteJWKSet(new URL(url), {
          cacheMaxAge: options.cacheMaxAgeMs ?? 600_000,
          cooldownDuration: options.cooldownMs ?? 30_000,
          timeoutDuration: options.timeoutMs ?? 5_000,
        });
        sets.set(url, set);
      }
      return set;
    },
  };
}
export type KeySets = ReturnType<typeof createKeySets>;
