import { expiryOf } from "../../../shared/store/history-ring.ts";
import type { Deps } from "../deps.ts";
import { dropSnapshot } from "../evict-history.ts";
import { backfillPruneDays } from "../sessions/backfill-prune-days.ts";
import { pruneSessions } from "../sessions/prune-sessions.ts";

const hourMs = 3_600_000;
/** Snapshots without an expiry handled per round, so a large backlog never loads at once. */
const backfillPage = 100;

/**
 * Deletes every snapshot past its plan's retention, a whole `expiresDay` at a time, oldest day first.
 * The store filters by equality only, but it sorts: the oldest day is the first document in
 * `expiresDay` order, so no range query and no list of days to guess is needed, however long the
 * service was down. Deletes are idempotent, so any number of service copies may run this at once.
 * Returns how many snapshots this copy deleted.
 */
export async function pruneSnapshots(deps: Deps): Promise<number> {
  const { repo } = deps;
  const today = deps.now().toISOString().slice(0, 10);
  let deleted = 0;
  let previous: string | undefined;
  for (;;) {
    const oldest = await repo.snapshots.findOne({}, { field: "expiresDay", direction: 1 });
    if (!oldest) return deleted;
    // Missing sorts first. Never filter on it: an undefined field drops out of the filter, and the
    // delete would match every snapshot.
    if (oldest.expiresDay === undefined) {
      if ((await backfillExpiry(deps)) === 0) return deleted;
      continue;
    }
    // Each day's bucket is empty once deleted (new snapshots expire after today): a repeat means
    // the store did not delete it, and looping on would never end.
    if (oldest.expiresDay > today || oldest.expiresDay === previous) return deleted;
    deleted += await dropDay(deps, oldest.expiresDay);
    previous = oldest.expiresDay;
  }
}

/** Deletes one day's snapshots a page at a time, each one's bytes given back to its account. */
async function dropDay(deps: Deps, expiresDay: string): Promise<number> {
  let deleted = 0;
  for (;;) {
    const page = await deps.repo.snapshots.find({ expiresDay }, { limit: backfillPage });
    if (page.length === 0) return deleted;
    // Side by side: the store commits a page's deletes together.
    deleted += (await Promise.all(page.map((s) => dropSnapshot(deps, s)))).filter((bytes) => bytes > 0).length;
  }
}

/**
 * Snapshots written before expiries were recorded get one from their creation time and the longest
 * retention in the catalog: their plan is unknown, and keeping a restore point too long is the safe
 * mistake.
 */
async function backfillExpiry(deps: Deps): Promise<number> {
  const { repo } = deps;
  const longest = Math.max(...Object.values(deps.plans).map((p) => p.snapshot.retentionDays));
  const legacy = await repo.snapshots.find({ expiresDay: null }, { limit: backfillPage });
  for (const s of legacy)
    await repo.snapshots.update({ _id: s._id, expiresDay: null }, expiryOf(new Date(s.createdAt), longest));
  return legacy.length;
}

/**
 * Prunes snapshots and ended sessions (prune-sessions.ts) once now and then every hour. Every service
 * copy runs its own timer: a run is cheap when there is nothing to delete, and one that fails (the
 * store down) is simply retried by the next. The timer does not keep the process alive.
 */
export function schedulePruning(deps: Deps): void {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const deleted = await pruneSnapshots(deps);
      if (deleted > 0) deps.log.info("pruned snapshots past retention", { deleted });
      await backfillPruneDays(deps);
      const sessions = await pruneSessions(deps.repo.sessions, deps.now());
      if (sessions > 0) deps.log.info("pruned ended sessions past retention", { deleted: sessions });
    } catch (err) {
      deps.log.warn("pruning snapshots or sessions failed; the next run retries", { err });
    } finally {
      running = false;
    }
  };
  void run();
  setInterval(run, hourMs).unref();
}
