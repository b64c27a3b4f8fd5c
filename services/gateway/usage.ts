import type { Bus } from "../../shared/bus/port.ts";
import { callEndpoint } from "../../shared/serving/call.ts";
import { internal } from "../../shared/contract/internal.ts";
import type { Logger } from "../../shared/process/log.ts";

interface Count {
  scope: string;
  window: string;
  /** How long billing keeps the window's total (days). */
  keepDays: number;
  /** Counted here, not yet reported. */
  pending: number;
  /** Reported, not yet answered: counted once, whichever report carries it. */
  inFlight: number;
  /** Every copy's total as the billing service last answered. */
  known: number;
  /** Read since the last report: its total is worth refreshing even with nothing to add. */
  read: boolean;
  /** When `known` was last answered (0: never). */
  refreshedAt: number;
}

/**
 * Request counts shared by every gateway copy without a store round trip per request: each copy
 * counts locally and reports in batches (every `flushMs`) to the billing service, which adds them up
 * and answers the totals of all copies. Each batch also refreshes the totals this copy consulted, so
 * under load a copy sees the others' requests about two batches late at most. A total older than one
 * batch (a scope new to this copy, or one it has not served for a while) is refreshed before it is
 * trusted: one round trip, after which the batches keep it fresh.
 */
export function createUsage(bus: Bus, log: Logger, flushMs = 500) {
  const counts = new Map<string, Count>();
  const keyOf = (scope: string, window: string) => `${scope}|${window}`;
  let inFlight: Promise<void> | undefined;

  // One report at a time: a reply's totals then include every count reported before it, and never
  // one still in flight in another report (which would count it twice until that one answered).
  let chain: Promise<void> = Promise.resolve();
  function report(entries: Count[]): Promise<void> {
    const run = chain.then(() => send(entries));
    chain = run.catch(() => {});
    return run;
  }

  async function send(entries: Count[]): Promise<void> {
    const sent = entries.map((c) => {
      const n = c.pending;
      c.pending = 0;
      c.inFlight += n;
      return n;
    });
    try {
      const counts = entries.map((c, i) => ({ scope: c.scope, window: c.window, n: sent[i]!, keepDays: c.keepDays }));
      const { totals } = await callEndpoint(bus, internal.reportUsage, { counts });
      entries.forEach((c, i) => {
        c.inFlight -= sent[i]!;
        c.read = false;
        c.refreshedAt = Date.now();
        // Totals only grow within a window; a reply overtaken by a later one must not lower it.
        c.known = Math.max(c.known, totals.find((t) => t.scope === c.scope && t.window === c.window)?.n ?? 0);
      });
    } catch (err) {
      entries.forEach((c, i) => {
        c.inFlight -= sent[i]!;
        c.pending += sent[i]!;
      });
      throw err;
    }
  }

  function flush(): Promise<void> {
    inFlight ??= (async () => {
      const due = [...counts.values()].filter((c) => c.pending > 0 || c.read);
      if (due.length > 0) await report(due).catch((err) => log.warn("usage report failed; will retry", { err: (err as Error).message }));
    })().finally(() => (inFlight = undefined));
    return inFlight;
  }
  const timer = setInterval(() => void flush(), flushMs);
  timer.unref?.();

  const entry = (scope: string, window: string, keepDays: number) => {
    const key = keyOf(scope, window);
    let c = counts.get(key);
    if (!c) counts.set(key, (c = { scope, window, keepDays, pending: 0, inFlight: 0, known: 0, read: false, refreshedAt: 0 }));
    return c;
  };

  return {
    /** Every copy's count for the scope and window, as far as this copy knows it. */
    used: (scope: string, window: string) => {
      const c = counts.get(keyOf(scope, window));
      if (!c) return 0;
      c.read = true;
      return c.known + c.inFlight + c.pending;
    },
    /** Counts one request; `keepDays` says how long billing should keep the window's total. */
    add: (scope: string, window: string, keepDays: number) => void entry(scope, window, keepDays).pending++,
    /** Makes sure the total of a scope and window is at most one batch old. */
    async refresh(scope: string, window: string, keepDays: number): Promise<void> {
      const c = entry(scope, window, keepDays);
      if (Date.now() - c.refreshedAt <= flushMs) return;
      await report([c]).catch((err) => {
        // Billing is out of reach: count locally, and ask again only after another batch.
        c.refreshedAt = Date.now();
        log.warn("usage unavailable; counting locally", { err: (err as Error).message });
      });
    },
    /** Forgets windows that ended, so the map holds only what is counted now. */
    forgetExcept(windows: Set<string>) {
      for (const [key, c] of counts) if (!windows.has(c.window) && c.pending + c.inFlight === 0) counts.delete(key);
    },
    flush,
    /** Windows held: only the ones counted now, once ended ones are forgotten. */
    get size() {
      return counts.size;
    },
    /** Stops the batches after reporting what is still pending, so a deploy loses no counts. */
    async stop(): Promise<void> {
      clearInterval(timer);
      await flush();
    },
  };
}
export type Usage = ReturnType<typeof createUsage>;
