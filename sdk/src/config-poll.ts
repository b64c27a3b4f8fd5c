import type { Clock } from "./clock.ts";
import { nextPolicyReadAt } from "./policy-decision.ts";

/**
 * Reads the runtime config again every `everyMs` on the client's clock, so a policy change reaches a game
 * that stays in the foreground (a tab left visible, a Node game). Each read is conditional (ETag): an
 * unchanged policy costs a 304. Returns a function that stops it.
 */
export function pollConfig(clock: Clock, everyMs: number, read: () => Promise<unknown>): () => void {
  let timer: unknown;
  let stopped = false;
  const plan = () => {
    const due = nextPolicyReadAt(clock.now(), everyMs);
    if (stopped || !Number.isFinite(due)) return;
    timer = clock.setTimeout(() => {
      timer = undefined;
      // Offline, the cached policy stays: the next turn tries again.
      void read()
        .catch(() => {})
        .finally(plan);
    }, due - clock.now());
  };
  plan();
  return () => {
    stopped = true;
    if (timer !== undefined) clock.clearTimeout(timer);
  };
}
