import type { Bus, RequestHandler } from "../bus/port.ts";
import { fail, isAppError } from "../contract/errors.ts";
import { createLogger } from "../observe/log.ts";
import { metrics, since } from "../observe/metrics.ts";
import { StoreUnavailableError } from "../store/port.ts";

const outcomeOf = (err: unknown) =>
  isAppError(err) ? err.code : err instanceof StoreUnavailableError ? "store_unavailable" : "internal_error";

/**
 * Hosts a handler on the bus for a service's queue group: times it by subject and outcome, and says
 * what a store outage means to the caller (503, retry soon) before the bus carries the failure. Every
 * served subject of a service goes through here, whichever bus adapter carries it.
 */
export function host(bus: Bus, group: string, subject: string, handler: RequestHandler): void {
  const log = createLogger({ service: group });
  bus.serve(group, subject, async (data, meta) => {
    const start = performance.now();
    try {
      const value = await handler(data, meta);
      metrics.handled.observe({ subject, outcome: "ok" }, since(start));
      return value;
    } catch (err) {
      metrics.handled.observe({ subject, outcome: outcomeOf(err) }, since(start));
      if (!(err instanceof StoreUnavailableError)) throw err;
      metrics.storeErrors.inc({ service: group });
      log.warn("store unavailable", { subject, requestId: meta.requestId, err: err.cause });
      throw fail.serviceUnavailable();
    }
  });
}
