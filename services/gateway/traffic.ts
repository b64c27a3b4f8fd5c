import type { Bus } from "../../shared/bus/port.ts";
import { latencyBoundsMs, noTraffic, overviewEndpoints, type TrafficCounts } from "../../shared/contract/overview.ts";
import type { Logger } from "../../shared/observe/log.ts";
import { callEndpoint } from "../../shared/serving/call.ts";

/** Routes whose answers are syncs: a 409 from them with the server's state is a conflict. */
const syncRoutes = new Set(["syncAccountData", "syncSlot", "syncSave"]);

type Minute = TrafficCounts & { envId: string; minute: number };
const zero = (envId: string, minute: number): Minute => ({ envId, minute, ...noTraffic() });

export const defaultTrafficFlushMs = 10_000;

/**
 * The dashboard's counts (docs/api-rules.md#overview): a runtime request costs a map lookup and a few
 * additions here; every `flushMs` this copy sends what it counted since, per environment and minute, in
 * one bus message, and billing adds it to the shared series. A report billing did not take is kept and
 * sent with the next one (a report that timed out but was stored is then counted twice: rare, and a
 * dashboard's count, not a limit). The timer does not keep the process alive.
 */
export function createTraffic(bus: Bus, log: Logger, flushMs = defaultTrafficFlushMs, now: () => number = Date.now) {
  let pending = new Map<string, Minute>();
  let flushing: Promise<void> | undefined;

  function record(envId: string, route: string, status: number, conflict: boolean, ms: number): void {
    const minute = Math.floor(now() / 60_000);
    const key = `${envId}|${minute}`;
    let m = pending.get(key);
    if (!m) {
      m = zero(envId, minute);
      pending.set(key, m);
    }
    m.requests++;
    if (syncRoutes.has(route)) m.syncs++;
    if (conflict) m.conflicts++;
    if (status >= 500) m.serverErrors++;
    else if (status >= 400) m.clientErrors++;
    let i = 0;
    while (i < latencyBoundsMs.length && ms > latencyBoundsMs[i]!) i++;
    m.latency[i]!++;
  }

  function merge(into: Map<string, Minute>, from: Iterable<Minute>): void {
    for (const m of from) {
      const key = `${m.envId}|${m.minute}`;
      const held = into.get(key);
      if (!held) into.set(key, m);
      else {
        for (const k of ["requests", "syncs", "conflicts", "clientErrors", "serverErrors"] as const) held[k] += m[k];
        for (const [i, n] of m.latency.entries()) held.latency[i]! += n;
      }
    }
  }

  /** Sends what was counted; one flush at a time. */
  function flush(): Promise<void> {
    if (flushing || pending.size === 0) return flushing ?? Promise.resolve();
    const sent = pending;
    pending = new Map();
    flushing = callEndpoint(bus, overviewEndpoints.reportTraffic, { minutes: [...sent.values()] })
      .then(
        () => {},
        (err) => {
          merge(pending, sent.values());
          log.warn("traffic report failed; kept for the next one", { err: (err as Error).message });
        },
      )
      .finally(() => (flushing = undefined));
    return flushing;
  }

  const timer = setInterval(flush, flushMs);
  timer.unref?.();
  return { record, flush, stop: () => clearInterval(timer) };
}
export type Traffic = ReturnType<typeof createTraffic>;
