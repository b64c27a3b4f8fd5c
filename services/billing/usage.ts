import type { z } from "zod";
import type { internal } from "../../shared/contract/internal.ts";
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
  const sums = new Map<string, { scope: string; window: string; n: number }>();
  for (const c of report.counts) {
    const id = `${c.scope}|${c.window}`;
    const sum = sums.get(id) ?? { scope: c.scope, window: c.window, n: 0 };
    sums.set(id, { ...sum, n: sum.n + c.n });
  }
  const totals = await Promise.all(
    [...sums].map(async ([id, c]) => {
      const doc = c.n > 0 ? await usage.increment(id, "n", c.n, { scope: c.scope, window: c.window }) : await usage.get(id);
      return { scope: c.scope, window: c.window, n: doc?.n ?? 0 };
    }),
  );
  return { totals };
}
