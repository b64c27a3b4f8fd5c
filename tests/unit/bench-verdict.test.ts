import { expect, test } from "bun:test";
import { gameSave } from "../bench/game-save.ts";
import { compare, formatComparison, formatRatio, spread, verdictText } from "../bench/regression-verdict.ts";

/** The pure pieces of `BENCH_BASELINE=<ref> bun run bench` (tests/bench/regression.ts) and of its saves. */

test("a side's spread is its median, range, and range relative to the median", () => {
  expect(spread([110, 90, 100])).toEqual({ median: 100, min: 90, max: 110, relative: 0.2 });
});

test("throughput: every new round below every old one is slower beyond noise, and says so in capitals", () => {
  const c = compare([80, 85, 82], [100, 95, 104], "higher");
  expect(c.verdict).toBe("worse");
  expect(c.ratio).toBeCloseTo(82 / 100);
  expect(verdictText(c, "throughput")).toBe("SLOWER than baseline beyond noise");
  expect(formatComparison(c, "throughput")).toContain("new/old  0.82x");
  expect(formatComparison(c, "throughput")).toContain("SLOWER than baseline beyond noise");
});

test("throughput: overlapping rounds are within noise, even with a lower median", () => {
  const c = compare([90, 99, 96], [100, 95, 104], "higher");
  expect(c.ratio).toBeLessThan(1);
  expect(c.verdict).toBe("within noise");
  expect(formatComparison(c, "throughput")).toMatch(/noise 9%\s+within noise$/);
});

test("rounds apart but a ratio nearer 1 than the noise are within noise (a wandering machine is not a regression)", () => {
  // New 60..62 against old 63..90: apart, 0.80x, but the old side alone wandered by 36%.
  const c = compare([60, 62], [63, 90], "higher");
  expect(c.ratio).toBeCloseTo(61 / 76.5);
  expect(c.noise).toBeCloseTo(27 / 76.5);
  expect(c.verdict).toBe("within noise");
});

test("of two rounds the median is their mean, not the better one", () => {
  expect(spread([434, 504]).median).toBe(469);
});

test("CPU per request: lower is better, so every new round above every old one is more CPU beyond noise", () => {
  const worse = compare([0.0003, 0.00031], [0.0002, 0.00021], "lower");
  expect(worse.verdict).toBe("worse");
  expect(verdictText(worse, "cpu")).toBe("MORE CPU than baseline beyond noise");
  expect(formatComparison(worse, "cpu")).toContain("new 305 us (300..310)  old 205 us (200..210)");
  const better = compare([0.0001, 0.00011], [0.0002, 0.00021], "lower");
  expect(verdictText(better, "cpu")).toBe("less CPU than baseline beyond noise");
});

test("one round a side gives no noise estimate: the verdict says so instead of calling it real", () => {
  const c = compare([80], [100], "higher");
  expect(c.estimated).toBe(false);
  expect(verdictText(c, "throughput")).toBe("slower than baseline? (1 round: no noise estimate)");
  expect(formatComparison(c, "throughput")).not.toContain("noise 0%");
});

test("ratios print with two decimals, and a ratio of nothing as n/a", () => {
  expect(formatRatio(1.2345)).toBe("1.23x");
  expect(formatRatio(Number.NaN)).toBe("n/a");
  expect(formatRatio(1 / 0)).toBe("n/a");
});

test("a game's save changes every write and stays its size (1 KiB and 10 KiB)", () => {
  for (const bytes of [1024, 10_240]) {
    const game = gameSave(bytes, 3);
    const first = JSON.stringify(game.save);
    expect(first.length).toBe(bytes);
    const seen = new Set([first]);
    for (let i = 0; i < 1000; i++) {
      const next = JSON.stringify(game.next());
      seen.add(next);
      expect(Math.abs(next.length - bytes)).toBeLessThan(32);
    }
    expect(seen.size).toBe(1001);
  }
  // Seeded: two servers compared are sent the same saves.
  expect(JSON.stringify(gameSave(1024, 5).next())).toBe(JSON.stringify(gameSave(1024, 5).next()));
});

test("one round of CPU: the unsure verdict keeps CPU in capitals and has a question mark", () => {
  expect(verdictText(compare([0.0003], [0.0002], "lower"), "cpu")).toBe(
    "more CPU than baseline? (1 round: no noise estimate)",
  );
});
