import type { Bus } from "../../shared/bus/port.ts";
import { internal } from "../../shared/contract/internal.ts";
import type { Logger } from "../../shared/observe/log.ts";
import { callEndpoint } from "../../shared/serving/call.ts";

interface Lease {
  /** Granted units not used yet, as [from, to) ranges of the window's numbering (billing's). */
  held: [number, number][];
  /** Every copy's claims in the window as billing last answered. */
  total: number;
  /** What the previous window took off the limit, as billing last answered. */
  lowered: number;
  /** The one wait for a claim in this copy (at most the deadline): concurrent requests share it. */
  claiming?: Promise<void>;
  /** Claims of this window sent and not answered yet: the window is not forgotten while one may still grant. */
  sent: number;
  /** Admitted while billing did not answer: not in billing's total until a claim carries them. */
  local: number;
  /** Of `local`, the units a claim under way carries to billing. */
  reporting: number;
}

/** What a claim asks billing for, but how many units: a window's limit, how long its count is kept, what lowers it. */
type Ask = { scope: string; window: string; limit: number; keepDays: number; less?: string };

/** A unit taken from a lease: its number in the window, or -1 for one counted here only. */
export type Unit = number;

export interface ClaimOptions {
  /** How long a request waits for a claim before this copy counts alone (SAVEPOINT_CLAIM_DEADLINE_MS). */
  deadlineMs?: number;
  /** How long a claim may go unanswered before it failed (the gateway's bus timeout): a late grant still counts. */
  timeoutMs?: number;
  /** While counting alone, how soon after a failed claim the next one may be sent. */
  retryMs?: number;
  now?: () => number;
}

export const defaultClaimDeadlineMs = 250;

/** The largest block one claim takes: small limits claim one unit at a time, huge monthly ones 1,000. */
const blockCap = (limit: number) => Math.min(1_000, Math.max(1, Math.floor(limit / 8)));

/**
 * Leased quota claims (docs/plans-and-limits.md): this gateway copy admits a request only with a unit of the
 * window's limit that billing granted it, so all copies together admit at most the limit. Units are
 * claimed in blocks, so a window far from its limit costs no round trip per request; blocks shrink to
 * a quarter of what is left as the window fills, so units stranded in copies (unused, never given
 * back) stay few. A unit numbered at or past a lowered limit is dropped, so lowering a limit applies at
 * once.
 *
 * A request waits for a claim at most `deadlineMs`. A claim that misses it, or fails, makes this copy
 * count alone, every window at once (billing is one service: slow for one scope, slow for all): no
 * request waits for billing then, and one claim at a time probes it. The first answer, a late one
 * included, brings claims back; the next claim of a window carries the units it admitted alone, so
 * billing's totals include them and the window's limit is still met exactly when they fit.
 */
export function createClaims(bus: Bus, log: Logger, options: ClaimOptions = {}) {
  const { deadlineMs = defaultClaimDeadlineMs, timeoutMs, retryMs = 500, now = Date.now } = options;
  const leases = new Map<string, Lease>();
  const keyOf = (scope: string, window: string) => `${scope}|${window}`;
  /** Claims sent, and how they ended: what the tests count. */
  const counts = { sent: 0, late: 0, failed: 0 };
  /** Billing did not answer in time: every window is counted here only, and no request waits. */
  let alone = false;
  /** Claims under way in this copy, for every window. */
  let unanswered = 0;
  let nextProbeAt = 0;

  function lease(scope: string, window: string): Lease {
    const key = keyOf(scope, window);
    let l = leases.get(key);
    if (!l) {
      l = { held: [], total: 0, lowered: 0, sent: 0, local: 0, reporting: 0 };
      leases.set(key, l);
    }
    return l;
  }

  function countAlone(reason: string, err?: unknown): void {
    if (alone) return;
    alone = true;
    log.warn("usage claims unavailable; counting locally", { reason, ...(err ? { err: (err as Error).message } : {}) });
  }

  /** Sends one claim; its answer, however late, is applied to the lease. Never rejects. */
  function send(l: Lease, ask: Ask): Promise<void> {
    const { limit } = ask;
    const owed = l.local - l.reporting;
    const want = Math.max(1, Math.min(blockCap(limit), Math.ceil((limit - l.lowered - l.total) / 4)));
    l.reporting += owed;
    l.sent++;
    unanswered++;
    counts.sent++;
    const claim = { ...ask, want: want + owed };
    return callEndpoint(bus, internal.claimUsage, claim, timeoutMs ? { timeoutMs } : undefined)
      .then(
        (got) => {
          l.total = Math.max(l.total, got.total);
          l.lowered = got.lowered;
          // The units admitted alone are in billing's total now; the first granted units pay for them.
          l.local = Math.max(0, l.local - owed);
          const paid = Math.min(got.granted, owed);
          if (got.granted > paid) l.held.push([got.from + paid, got.from + got.granted]);
          if (alone) log.info("usage claims answered again; counting by claims");
          alone = false;
        },
        (err) => {
          counts.failed++;
          nextProbeAt = now() + retryMs;
          countAlone("failed", err);
        },
      )
      .finally(() => {
        l.reporting -= owed;
        l.sent--;
        unanswered--;
      });
  }

  /** Waits for a claim at most the deadline; past it, this copy counts alone until billing answers. */
  async function claimWithin(l: Lease, ask: Ask): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), deadlineMs)));
    const first = await Promise.race([send(l, ask), deadline]);
    clearTimeout(timer);
    if (first === "late") {
      counts.late++;
      countAlone(`no answer within ${deadlineMs} ms`);
    }
  }

  /** A unit from a block already granted, without waiting; undefined when none is left to take so. */
  function takeHeld(l: Lease, limit: number): Unit | undefined {
    const range = l.held[0];
    if (!range || l.claiming || alone || range[0] >= limit - l.lowered) return undefined;
    const unit = range[0];
    if (++range[0] === range[1]) l.held.shift();
    return unit;
  }

  return {
    /**
     * `take` for the usual request, whose units are all in blocks already granted: taken at once, with
     * no promise; undefined for a window that has none left (then `take` it).
     */
    takeHeld(scope: string, window: string, limit: number): Unit | undefined {
      return takeHeld(lease(scope, window), limit);
    },
    /**
     * One unit of `limit` for the scope's window, or null once the window's limit is used up. `less`
     * names a window whose granted units lower the limit (the previous minute, for a shared burst).
     */
    async take(scope: string, window: string, limit: number, keepDays: number, less?: string): Promise<Unit | null> {
      const l = lease(scope, window);
      const ask = { scope, window, limit, keepDays, less };
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
        if (alone) {
          // One claim at a time asks whether billing answers again; the request does not wait for it.
          if (unanswered === 0 && now() >= nextProbeAt) void send(l, ask);
          if (l.total + l.local >= cap) return null;
          l.local++;
          return -1;
        }
        // Claims only grow within a window: once they reach the limit no claim can be granted.
        if (l.total >= cap) return null;
        l.claiming = claimWithin(l, ask).finally(() => (l.claiming = undefined));
        await l.claiming;
      }
    },
    /** Gives back a unit taken for a request another limit refused: it was not used. */
    giveBack(scope: string, window: string, unit: Unit): void {
      const l = leases.get(keyOf(scope, window));
      if (!l) return;
      if (unit < 0) l.local = Math.max(l.reporting, l.local - 1);
      else l.held.unshift([unit, unit + 1]);
    },
    /** Units of the window claimed by every copy, as far as this copy knows (at most the limit). */
    claimed(scope: string, window: string, limit: number): number {
      const l = leases.get(keyOf(scope, window));
      return l ? Math.min(limit - l.lowered, l.total + l.local) : 0;
    },
    /** Forgets windows that ended, so the map holds only what is counted now. */
    forgetExcept(windows: Set<string>): void {
      for (const [key, l] of leases)
        if (!windows.has(key.slice(key.lastIndexOf("|") + 1)) && l.sent === 0) leases.delete(key);
    },
    /** Claims sent to billing. */
    get claimsSent() {
      return counts.sent;
    },
    /** Claims a request stopped waiting for at the deadline (answered later or never). */
    get claimsLate() {
      return counts.late;
    },
    /** Claims that failed (billing unreachable, or no answer within the bus timeout). */
    get claimsFailed() {
      return counts.failed;
    },
    /** Whether this copy counts alone now (billing did not answer its last claim in time). */
    get countingAlone() {
      return alone;
    },
  };
}
export type Claims = ReturnType<typeof createClaims>;
