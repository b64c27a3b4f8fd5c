import type { z } from "zod";
import type { internal } from "../../shared/contract/internal.ts";
import { dayAfter, deleteDaysBefore } from "../../shared/store/prune-days.ts";
import type { Deps } from "./deps.ts";

type Report = z.infer<typeof internal.reportUsage.request>;
type Totals = z.infer<typeof internal.reportUsage.reply>;

/**
 * `billing.usage.report`: adds each gateway's counts since its last report to the shared totals, one
 * atomic increment per (scope, window), and answers the new totals of every pair the report named, so
 * every gateway copy enforces limits on what all copies counted. A count of 0 only reads the total.
 */
export async function reportUsage(deps: Deps, report: Report): Promise<Totals> {
  const { usage } = deps.repo;
  // A pair named twice in one report is one write.
  const sums = new Map<string, Report["counts"][number]>();
  for (const c of report.counts) {
    const id = `${c.scope}|${c.window}`;
    const sum = sums.get(id) ?? { ...c, n: 0 };
    sums.set(id, { ...sum, n: sum.n + c.n });
  }
  const now = deps.now();
  const totals = await Promise.all(
    [...sums].map(async ([id, c]) => {
      // The window began by now: it is no longer needed once keepDays (and a day of margin) have passed.
      const init = { scope: c.scope, window: c.window, pruneDay: dayAfter(now, c.keepDays + 1) };
      const doc = c.n > 0 ? await usage.increment(id, "n", c.n, init) : await usage.get(id);
      return { scope: c.scope, window: c.window, n: doc?.n ?? 0 };
    }),
  );
  return { totals };
}

const hourMs = 3_600_000;

/**
 * Prunes totals of windows that ended long ago (each carries its prune day), at start and hourly.
 * The timer does not keep the process alive; deletes are idempotent, so every copy may run it.
 */
export function scheduleUsagePruning(deps: Deps): void {
  const prune = () =>
    deleteDaysBefore(deps.repo.usage, "pruneDay", deps.now().toISOString().slice(0, 10)).catch((err) =>
      deps.log.warn("usage pruning failed", { err: (err as Error).message }),
    );
  void prune();
  setInterval(prune, hourMs).unref?.();
}
