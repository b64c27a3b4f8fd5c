import { createRemoteJWKSet, type JWTVerifyGetKey } from "jose";

/**
 * How long a key-set fetch may take: half the bus timeout, at most 5 s, so that a key set that hangs
 * is this service's 503 with Retry-After, answered before the gateway gives up on it with a 504.
 */
export const keySetTimeoutMs = (busTimeoutMs: number) => Math.min(5_000, Math.floor(busTimeoutMs / 2));

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
