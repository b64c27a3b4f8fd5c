import type { Bus } from "../../shared/bus/port.ts";
import { internal } from "../../shared/contract/internal.ts";
import type { Logger } from "../../shared/process/log.ts";
import { callEndpoint } from "../../shared/serving/call.ts";

interface Lease {
  /** Granted units not used yet, as [from, to) ranges of the window's numbering (billing's). */
  held: [number, number][];
  /** Every copy's claims in the window as billing last answered. */
  total: number;
  /** What the previous window took off the limit, as billing last answered. */
  lowered: number;
  /** The one claim under way for this window in this copy: concurrent requests wait for it. */
  claiming?: Promise<void>;
  /** Billing out of reach: until then the window is counted here only. */
  offlineUntil: number;
  /** Admitted while billing was out of reach. */
  local: number;
}

/** A unit taken from a lease: its number in the window, or -1 for one counted here only. */
export type Unit = number;

/** The largest block one claim takes: small limits claim one unit at a time, huge monthly ones 1,000. */
const blockCap = (limit: number) => Math.min(1_000, Math.max(1, Math.floor(limit / 8)));

/**
 * Leased quota claims (README, Limits): this gateway copy admits a request only with a unit of the
 * window's limit that billing granted it, so all copies together admit at most the limit. Units are
 * claimed in blocks, so a window far from its limit costs no round trip per request; blocks shrink to
 * a quarter of what is left as the window fills, so units stranded in copies (unused, never given
 * back) stay few. A unit numbered at or past a lowered limit is dropped, so lowering a limit applies at
 * once. With billing out of reach a copy counts on its own (and says so), as it always did.
 */
export function createClaims(bus: Bus, log: Logger, retryMs = 500, now: () => number = Date.now) {
  const leases = new Map<string, Lease>();
  const keyOf = (scope: string, window: string) => `${scope}|${window}`;
  /** Bus requests to billing, for the metrics and the bench. */
  let claimsSent = 0;

  function lease(scope: string, window: string): Lease {
    const key = keyOf(scope, window);
    let l = leases.get(key);
    if (!l) leases.set(key, (l = { held: [], total: 0, lowered: 0, offlineUntil: 0, local: 0 }));
    return l;
  }

  async function claim(l: Lease, scope: string, window: string, limit: number, keepDays: number, less?: string): Promise<void> {
    const want = Math.max(1, Math.min(blockCap(limit), Math.ceil((limit - l.lowered - l.total) / 4)));
    claimsSent++;
    try {
      const got = await callEndpoint(bus, internal.claimUsage, { scope, window, want, limit, less, keepDays });
      l.total = Math.max(l.total, got.total);
      l.lowered = got.lowered;
      if (got.granted > 0) l.held.push([got.from, got.from + got.granted]);
    } catch (err) {
      l.offlineUntil = now() + retryMs;
      log.warn("usage claims unavailable; counting locally", { err: (err as Error).message });
    }
  }

  return {
    /**
     * One unit of `limit` for the scope's window, or null once the window's limit is used up. `less`
     * names a window whose granted units lower the limit (the previous minute, for a shared burst).
     */
    async take(scope: string, window: string, limit: number, keepDays: number, less?: string): Promise<Unit | null> {
      const l = lease(scope, window);
      for (;;) {
        const cap = limit - l.lowered;
        const range = l.held[0];
        if (range) {
          const unit = range[0];
          if (unit < cap) {
            if (++range[0] === range[1]) l.held.shift();
            return unit;
          }
          l.held = [];
        }
        if (l.claiming) {
          await l.claiming;
          continue;
        }
        if (now() < l.offlineUntil) {
          if (l.total + l.local >= cap) return null;
          l.local++;
          return -1;
        }
        // Claims only grow within a window: once they reach the limit no claim can be granted.
        if (l.total >= cap) return null;
        l.claiming = claim(l, scope, window, limit, keepDays, less).finally(() => (l.claiming = undefined));
        await l.claiming;
      }
    },
    /** Gives back a unit taken for a request another limit refused: it was not used. */
    giveBack(scope: string, window: string, unit: Unit): void {
      const l = leases.get(keyOf(scope, window));
      if (!l) return;
      if (unit < 0) l.local--;
      else l.held.unshift([unit, unit + 1]);
    },
    /** Units of the window claimed by every copy, as far as this copy knows (at most the limit). */
    claimed(scope: string, window: string, limit: number): number {
      const l = leases.get(keyOf(scope, window));
      return l ? Math.min(limit - l.lowered, l.total + l.local) : 0;
    },
    /** Forgets windows that ended, so the map holds only what is counted now. */
    forgetExcept(windows: Set<string>): void {
      for (const [key, l] of leases) if (!windows.has(key.slice(key.lastIndexOf("|") + 1)) && !l.claiming) leases.delete(key);
    },
    get claimsSent() {
      return claimsSent;
    },
  };
}
export type Claims = ReturnType<typeof createClaims>;
