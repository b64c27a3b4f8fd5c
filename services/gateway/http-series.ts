import type { Route } from "../../shared/contract/route.ts";
import { type CounterSeries, type HistogramSeries, metrics } from "../../shared/observe/metrics.ts";

type HttpSeries = { requests: CounterSeries; duration: HistogramSeries };

// Each route's series by status, looked up by the route object: a request counts itself without
// building the series' label key twice, once for the count and once for the duration (issue 30).
const byRoute = new Map<Route, Map<number, HttpSeries>>();

/** The gateway's request count and duration series of one route and status. */
export function httpSeries(r: Route, status: number): HttpSeries {
  let byStatus = byRoute.get(r);
  if (!byStatus) {
    byStatus = new Map();
    byRoute.set(r, byStatus);
  }
  let series = byStatus.get(status);
  if (!series) {
    const labels = { route: r.operationId, method: r.method, status };
    series = { requests: metrics.httpRequests.series(labels), duration: metrics.httpDuration.series(labels) };
    byStatus.set(status, series);
  }
  return series;
}
