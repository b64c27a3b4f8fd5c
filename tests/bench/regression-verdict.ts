/**
 * How a row of a baseline comparison (BENCH_BASELINE) reads. Its rounds are taken in pairs, both servers
 * loaded at once (regression.ts), so each round's new/old is the measure: the ratio is their median, the
 * noise their spread relative to it, and a change is beyond noise only when every round's ratio is on
 * the same side of 1 and the ratio is further from 1 than that spread. Each side's own rounds (median,
 * min..max) are kept for the figures. One round gives no noise estimate, and the verdict says so instead
 * of calling any difference real.
 */
export type Better = "higher" | "lower";

export interface Spread {
  median: number;
  min: number;
  max: number;
  /** (max - min) / median: how far apart the rounds of one side were. */
  relative: number;
}

export function spread(xs: number[]): Spread {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  // Of an even count, the mean of the middle two: with 2 rounds, not the better of them.
  const median =
    sorted.length === 0
      ? Number.NaN
      : sorted.length % 2 === 1
        ? sorted[Math.floor(mid)]!
        : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const min = sorted[0] ?? Number.NaN;
  const max = sorted[sorted.length - 1] ?? Number.NaN;
  return { median, min, max, relative: (max - min) / median };
}

export type Verdict = "worse" | "better" | "within noise" | "worse, no noise estimate" | "better, no noise estimate";

export interface Comparison {
  ratio: number;
  newer: Spread;
  older: Spread;
  /** The rounds' ratios' spread, relative to their median. */
  noise: number;
  /** Whether there were rounds enough (2 or more) to say what noise is. */
  estimated: boolean;
  verdict: Verdict;
}

/**
 * Rounds taken in pairs, both sides at once on the same core: what the machine does to a round, it does
 * to both sides of it. Every round's ratio on one side of 1 happens by chance 1 time in 16 with 5 rounds
 * when nothing changed, and the ratio must also be further from 1 than the rounds' spread.
 */
export function comparePaired(newer: number[], older: number[], better: Better): Comparison {
  const ratios = newer.map((n, i) => n / older[i]!);
  const r = spread(ratios);
  const estimated = ratios.length >= 2;
  const worseRound = (x: number) => (better === "higher" ? x < 1 : x > 1);
  const worseDirection = worseRound(r.median);
  let verdict: Verdict;
  if (!estimated) {
    verdict =
      r.median === 1 ? "within noise" : worseDirection ? "worse, no noise estimate" : "better, no noise estimate";
  } else {
    const oneSide = ratios.every(worseRound) || ratios.every((x) => x !== 1 && !worseRound(x));
    const beyond = oneSide && Math.abs(r.median - 1) > r.relative;
    verdict = !beyond ? "within noise" : worseDirection ? "worse" : "better";
  }
  return { ratio: r.median, newer: spread(newer), older: spread(older), noise: r.relative, estimated, verdict };
}

/** The words a row ends with; a regression is in capitals so it cannot be missed. */
export function verdictText(c: Comparison, measure: "throughput" | "cpu"): string {
  const worse = measure === "throughput" ? "SLOWER than baseline" : "MORE CPU than baseline";
  const unsure = measure === "throughput" ? "slower than baseline" : "more CPU than baseline";
  const better = measure === "throughput" ? "faster than baseline" : "less CPU than baseline";
  switch (c.verdict) {
    case "worse":
      return `${worse} beyond noise`;
    case "better":
      return `${better} beyond noise`;
    case "worse, no noise estimate":
      return `${unsure}? (1 round: no noise estimate)`;
    case "better, no noise estimate":
      return `${better}? (1 round: no noise estimate)`;
    default:
      return "within noise";
  }
}

export const formatRatio = (ratio: number) => (Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : "n/a");

const grouped = (n: number) => Math.round(n).toLocaleString("en");

/** `9,881/s (9,700..10,020)` or `92 us (90..95)`: a side's median and the range of its rounds. */
export function formatSide(s: Spread, measure: "throughput" | "cpu"): string {
  const f = measure === "throughput" ? grouped : (v: number) => grouped(v * 1e6);
  const unit = measure === "throughput" ? "/s" : " us";
  const range = s.min === s.max ? "" : ` (${f(s.min)}..${f(s.max)})`;
  return `${f(s.median)}${unit}${range}`;
}

/** One printed line: ratio, both sides with their ranges, the noise and the verdict. */
export function formatComparison(c: Comparison, measure: "throughput" | "cpu"): string {
  const label = measure === "throughput" ? "throughput" : "CPU/request";
  const noise = c.estimated && Number.isFinite(c.noise) ? `noise ${(c.noise * 100).toFixed(0)}%  ` : "";
  return `${label.padEnd(11)} new/old ${formatRatio(c.ratio).padStart(6)}  new ${formatSide(c.newer, measure)}  old ${formatSide(c.older, measure)}  ${noise}${verdictText(c, measure)}`;
}
