import { expect, test } from "bun:test";
import { metrics, renderMetrics } from "../../shared/observe/metrics.ts";

// Series of this file's own labels: the registry is the process's, other tests may add to it.
const linesOf = (name: string, mark: string) =>
  renderMetrics()
    .split("\n")
    .filter((l) => l.startsWith(name) && l.includes(mark));

test("a histogram's buckets are cumulative, each counting every observation at or below its bound (NaN in none but +Inf)", () => {
  const mark = `unit-${crypto.randomUUID()}`;
  for (const seconds of [0.0001, 0.0005, 0.003, 0.003, 0.2, 30, Number.NaN])
    metrics.handled.observe({ subject: mark }, seconds);
  const bucket = (le: string) =>
    linesOf("savepoint_handler_duration_seconds_bucket", mark)
      .find((l) => l.includes(`le="${le}"`))
      ?.split(" ")[1];
  expect([bucket("0.0005"), bucket("0.001"), bucket("0.005"), bucket("0.25"), bucket("10"), bucket("+Inf")]).toEqual([
    "2",
    "2",
    "4",
    "5",
    "5",
    "7",
  ]);
  const count = linesOf("savepoint_handler_duration_seconds_count", mark)[0];
  expect(count?.split(" ")[1]).toBe("7");
});

test("series are told apart by their labels' names and values, and rendered with escaped values", () => {
  const mark = `unit-${crypto.randomUUID()}`;
  metrics.storeErrors.inc({ service: `${mark}"a\\b` });
  metrics.storeErrors.inc({ service: `${mark}"a\\b` });
  metrics.storeErrors.inc({ service: `${mark}x` });
  expect(linesOf("savepoint_store_errors_total", mark).sort()).toEqual([
    `savepoint_store_errors_total{service="${mark}\\"a\\\\b"} 2`,
    `savepoint_store_errors_total{service="${mark}x"} 1`,
  ]);
});
