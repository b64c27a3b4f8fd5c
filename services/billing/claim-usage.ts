import type { z } from "zod";
import type { internal } from "../../shared/contract/internal.ts";
import { dayAfter } from "../../shared/store/prune-days.ts";
import type { Deps } from "./deps.ts";
import type { UsageDoc } from "./repo.ts";

type Claim = z.infer<typeof internal.claimUsage.request>;
type Grant = z.infer<typeof internal.claimUsage.reply>;

/** Units of a window granted so far: claims past the limit of its first claim were granted nothing. */
const grantedIn = (doc: UsageDoc | null) => (doc ? Math.min(doc.n, doc.limit ?? doc.n) : 0);

/**
 * `billing.usage.claim` (docs/plans-and-limits.md): one atomic increment of the window's claimed total by `want`;
 * the claim is granted the part of [total - want, total) that lies below the limit. Concurrent claims
 * from any number of gateway copies take disjoint ranges, so the granted units never pass the limit.
 */
export async function claimUsage(deps: Deps, c: Claim): Promise<Grant> {
  const { usage } = deps.repo;
  const lowered = c.less ? grantedIn(await usage.get(`${c.scope}|${c.less}`)) : 0;
  const limit = Math.max(0, c.limit - lowered);
  const id = `${c.scope}|${c.window}`;
  if (c.want === 0) {
    const total = (await usage.get(id))?.n ?? 0;
    return { granted: 0, from: total, total, lowered };
  }
  // The window began by now: it is no longer needed once keepDays (and a day of margin) have passed.
  const init = { scope: c.scope, window: c.window, pruneDay: dayAfter(deps.now(), c.keepDays + 1), limit };
  const { n: total } = await usage.increment(id, "n", c.want, init);
  const from = total - c.want;
  return { granted: Math.min(c.want, Math.max(0, limit - from)), from, total, lowered };
}
