import type { SyncPolicy } from "./generated/schemas.ts";

/**
 * What the engine does on each trigger, as one pure function of the policy, the engine's state and the
 * clock (README, Policy flags). The engine asks it for every decision; sdk-vectors/policy.json holds the
 * cases every client runs against it.
 */
export type PolicyEvent =
  | "saved"
  | "sync"
  | "force"
  | "background"
  | "foreground"
  | "policyRead"
  | "reconnected"
  | "failed";

export interface PolicyState {
  /** Ms of the last push's start; absent before the first. */
  lastRemoteSyncAt?: number;
  /** Ms of the last forced sync that ran; absent before the first. */
  lastForcedAt?: number;
  /** Some save is not on the server yet. */
  pending: boolean;
  hasSession: boolean;
  /** The server refused the session: nothing syncs until a new sign-in. */
  stopped: boolean;
  /** Failed syncs in a row, this one included ("failed"). */
  failures?: number;
  /** The failed answer's Retry-After, in seconds ("failed"). */
  retryAfterSeconds?: number;
  /** The platform said the network is gone (the `offline` event) and has not said it is back. */
  networkDown?: boolean;
}

export interface PolicyOptions {
  onCooldown: "defer" | "refuse";
  retryBaseMs: number;
  retryMaxMs: number;
  /** Numbers in [0, 1) for the full-jitter wait ("failed"; asked only then). */
  random: () => number;
}

export type PolicyDecision =
  | { action: "push"; keepalive?: true }
  | { action: "defer"; until: number }
  | { action: "refuse"; retryAt: number }
  | { action: "refresh" }
  | { action: "pull" }
  | { action: "nothing" };

/** The earliest a push may start: now, or `minRemoteSyncIntervalSeconds` after the last one began. */
const intervalEnds = (policy: SyncPolicy, state: PolicyState, now: number) =>
  Math.max(now, (state.lastRemoteSyncAt ?? -Infinity) + policy.minRemoteSyncIntervalSeconds * 1000);

export function decide(
  policy: SyncPolicy,
  state: PolicyState,
  event: PolicyEvent,
  now: number,
  o: PolicyOptions,
): PolicyDecision {
  switch (event) {
    case "saved": {
      // Saves between two pushes coalesce: no push sooner than the interval after the last one.
      if (state.stopped || !state.hasSession || !state.pending) return { action: "nothing" };
      const due = intervalEnds(policy, state, now);
      return due <= now ? { action: "push" } : { action: "defer", until: due };
    }
    case "sync": {
      // A plain sync() keeps the interval too; its answer says the changes are deferred, and until when.
      const due = intervalEnds(policy, state, now);
      return due <= now ? { action: "push" } : { action: "defer", until: due };
    }
    case "force": {
      const retryAt = (state.lastForcedAt ?? -Infinity) + policy.forceSyncCooldownSeconds * 1000;
      if (now >= retryAt) return { action: "push" };
      return o.onCooldown === "refuse" ? { action: "refuse", retryAt } : { action: "defer", until: retryAt };
    }
    case "background":
      return policy.syncOnAppBackground ? { action: "push", keepalive: true } : { action: "nothing" };
    case "foreground":
      // The policy is read whatever the cached flags say: a flag turned off must be able to come back on.
      return { action: "refresh" };
    case "policyRead":
      // Asked with the policy just read (or the cached one when the read failed): the flag governs pull and push.
      return policy.syncOnAppForeground ? { action: "pull" } : { action: "nothing" };
    case "reconnected":
      return policy.syncOnReconnect ? { action: "push" } : { action: "nothing" };
    case "failed": {
      // Full jitter under a doubling ceiling, never sooner than Retry-After; off: the next trigger retries. With
      // the network known to be gone, a timer would only fail again: the platform's `online` retries instead.
      if (!policy.syncOnReconnect || state.networkDown) return { action: "nothing" };
      const ceiling = Math.min(o.retryMaxMs, o.retryBaseMs * 2 ** ((state.failures ?? 1) - 1));
      const wait = Math.max(o.random() * ceiling, (state.retryAfterSeconds ?? 0) * 1000);
      return { action: "defer", until: now + wait };
    }
  }
}

/** When the policy is read again on the timer (beside every foreground): `everyMs` after the last read; 0: never. */
export function nextPolicyReadAt(lastReadAt: number, everyMs: number): number {
  return everyMs > 0 ? lastReadAt + everyMs : Number.POSITIVE_INFINITY;
}
