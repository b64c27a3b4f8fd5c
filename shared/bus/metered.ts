import { isAppError } from "../contract/errors.ts";
import { metrics, since } from "../process/metrics.ts";
import { StoreUnavailableError } from "../store/port.ts";
import type { Bus } from "./port.ts";

const outcomeOf = (err: unknown) => (isAppError(err) ? err.code : err instanceof StoreUnavailableError ? "store_unavailable" : "internal_error");

/**
 * The bus with its metrics: each request's round trip as the caller saw it, and each handler's time,
 * by subject (whose first part names the service) and outcome.
 */
export function metered(bus: Bus): Bus {
  return {
    ...bus,
    async request(subject, data, options) {
      const start = performance.now();
      try {
        const value = await bus.request(subject, data, options);
        metrics.busRequests.observe({ subject, outcome: "ok" }, since(start));
        return value;
      } catch (err) {
        metrics.busRequests.observe({ subject, outcome: outcomeOf(err) }, since(start));
        throw err;
      }
    },
    serve(group, subject, handler) {
      bus.serve(group, subject, async (data, meta) => {
        const start = performance.now();
        try {
          const value = await handler(data, meta);
          metrics.handled.observe({ subject, outcome: "ok" }, since(start));
          return value;
        } catch (err) {
          if (err instanceof StoreUnavailableError) metrics.storeErrors.inc({ service: group });
          metrics.handled.observe({ subject, outcome: outcomeOf(err) }, since(start));
          throw err;
        }
      });
    },
  };
}
