import { isAppError } from "../contract/errors.ts";
import { metrics, since } from "../observe/metrics.ts";
import type { Bus } from "./port.ts";

/**
 * The bus with its callers' metrics: each request's round trip as the caller saw it, by subject
 * (whose first part names the service) and outcome. A handler's own time is the serving layer's to
 * measure (shared/serving/host.ts), where a failure's meaning is known.
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
        metrics.busRequests.observe({ subject, outcome: isAppError(err) ? err.code : "internal_error" }, since(start));
        throw err;
      }
    },
  };
}
