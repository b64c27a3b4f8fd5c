import { expect, test } from "bun:test";
import { gameSave } from "../bench/game-save.ts";
import { comparePaired, formatComparison, formatRatio, spread, verdictText } from "../bench/regression-verdict.ts";

/** The pure pieces of `BENCH_BASELINE=<ref> bun run bench` (tests/bench/regression.ts) and of its saves. */

test("a side's spread is its median, range, and range relative to the median", () => {
  expect(spread([110, 90, 100])).toEqual({ median: 100, min: 90, max: 110, relative: 0.2 });
});

test("throughput: every round's new below its old, further than the rounds' spread, is slower beyond noise, in capitals", () => {
  const c = comparePaired([80, 85, 82], [100, 104, 100], "higher");
  expect(c.verdict).toBe("worse");
  expect(c.ratio).toBeCloseTo(82 / 100);
  expect(verdictText(c, "throughput")).toBe("SLOWER than baseline beyond noise");
  expect(formatComparison(c, "throughput")).toContain("new/old  0.82x");
  expect(formatComparison(c, "throughput")).toContain("SLOWER than baseline beyond noise");
});

test("of two rounds the median is their mean, not the better one", () => {
  expect(spread([434, 504]).median).toBe(469);
});

test("CPU per request: lower is better, so every round's new above its old is more CPU beyond noise", () => {
  const worse = comparePaired([0.0003, 0.00031], [0.0002, 0.00021], "lower");
  expect(worse.verdict).toBe("worse");
  expect(verdictText(worse, "cpu")).toBe("MORE CPU than baseline beyond noise");
  expect(formatComparison(worse, "cpu")).toContain("new 305 us (300..310)  old 205 us (200..210)");
  const better = comparePaired([0.0001, 0.00011], [0.0002, 0.00021], "lower");
  expect(verdictText(better, "cpu")).toBe("less CPU than baseline beyond noise");
});

test("one round gives no noise estimate: the verdict says so instead of calling it real", () => {
  const c = comparePaired([80], [100], "higher");
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
  expect(verdictText(comparePaired([0.0003], [0.0002], "lower"), "cpu")).toBe(
    "more CPU than baseline? (1 round: no noise estimate)",
  );
});

test("paired rounds: a machine that wanders moves both sides of a round, and their ratio still tells", () => {
  // Each round both servers at once: CPU per request rose for both from round to round.
  const newer = [0.00022, 0.00033, 0.00044];
  const older = [0.0002, 0.0003, 0.0004];
  const paired = comparePaired(newer, older, "lower");
  expect(paired.ratio).toBeCloseTo(1.1);
  expect(paired.noise).toBeCloseTo(0);
  expect(paired.verdict).toBe("worse");
  expect(formatComparison(paired, "cpu")).toContain("new/old  1.10x");
  expect(formatComparison(paired, "cpu")).toContain("MORE CPU than baseline beyond noise");
  expect(comparePaired(older, newer, "lower").verdict).toBe("better");
});

test("paired rounds: one round on the other side of 1, or a ratio nearer 1 than the rounds' spread, is within noise", () => {
  const mixed = comparePaired([105, 98, 106], [100, 100, 100], "higher");
  expect(mixed.ratio).toBeCloseTo(1.05);
  expect(mixed.verdict).toBe("within noise");
  // Every round slower, 0.95x, but the rounds' ratios spread by 10%.
  const spreadWide = comparePaired([90, 95, 99], [100, 100, 100], "higher");
  expect(spreadWide.ratio).toBeCloseTo(0.95);
  expect(spreadWide.noise).toBeCloseTo(0.09 / 0.95);
  expect(spreadWide.verdict).toBe("within noise");
  expect(comparePaired([90, 94, 93], [100, 100, 100], "higher").verdict).toBe("worse");
});
