/**
 * How a row of a baseline comparison (BENCH_BASELINE) reads: the ratio of the two medians, the noise of
 * the run (each side's rounds, min..max and their spread relative to the median) and a verdict. A change
 * is beyond noise only when both hold: the ranges do not overlap (every interleaved round of one side was
 * worse than every round of the other: with 3 rounds a side, 1 chance in 20 when nothing changed), and
 * the ratio is further from 1 than the noise (a run whose rounds wander by 30% does not call 10% real).
 * One round a side gives no noise estimate, and the verdict says so instead of calling any difference real.
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
  // Of an even count, the mean of the middle two: with 2 rounds a side, not the better of them.
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
  /** The larger of the two sides' relative spreads. */
  noise: number;
  /** Whether both sides had rounds enough (2 or more) to say what noise is. */
  estimated: boolean;
  verdict: Verdict;
}

export function compare(newer: number[], older: number[], better: Better): Comparison {
  const n = spread(newer);
  const o = spread(older);
  const ratio = n.median / o.median;
  const noise = Math.max(n.relative, o.relative);
  const worseDirection = better === "higher" ? ratio < 1 : ratio > 1;
  const estimated = newer.length >= 2 && older.length >= 2;
  let verdict: Verdict;
  if (!estimated) {
    verdict = ratio === 1 ? "within noise" : worseDirection ? "worse, no noise estimate" : "better, no noise estimate";
  } else {
    const apart = better === "higher" ? n.max < o.min || n.min > o.max : n.min > o.max || n.max < o.min;
    const beyond = apart && Math.abs(ratio - 1) > noise;
    verdict = !beyond ? "within noise" : worseDirection ? "worse" : "better";
  }
  return { ratio, newer: n, older: o, noise, estimated, verdict };
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
