import { type CleanupJob, internal, queues } from "../../shared/contract/internal.ts";
import { failpoint } from "../../shared/observe/failpoint.ts";
import { callEndpoint } from "../../shared/serving/call.ts";
import { pointsOf } from "../../shared/synced/restore-points.ts";
import type { Deps } from "./deps.ts";
import { ensureEnvCount, envReserve } from "./environment-budget.ts";
import { dropSnapshot } from "./evict-history.ts";
import { keptForever } from "./sessions/prune-sessions.ts";

/**
 * Erases what a deletion left behind. Idempotent: a job delivered twice, or re-enqueued at start for a
 * tombstone still marked pending, does no harm.
 */
export async function runCleanup(deps: Deps, job: CleanupJob): Promise<void> {
  const { repo } = deps;
  const at = deps.now().toISOString();
  if (job.kind === "slot") {
    await dropAll(deps, job.id);
    await repo.slots.update({ _id: job.id }, { cleanupPending: false });
    return;
  }
  // Session documents stay, revoked and never pruned, so a deleted account's old session still answers 410.
  await repo.sessions.updateMany({ accountId: job.id, revokedAt: null }, { revokedAt: at });
  await repo.sessions.updateMany({ accountId: job.id }, { pruneDay: keptForever });
  // The transfer and auth-bridge services own codes and links; while one is out of reach the job
  // fails and comes back.
  failpoint("cleanup.mid-job");
  await callEndpoint(deps.bus, internal.eraseTransferCodes, { accountId: job.id });
  await callEndpoint(deps.bus, internal.eraseLinks, { accountId: job.id });
  // Idempotency records: answers kept for replays hold session tokens and ids (docs/api-rules.md#idempotent-retries).
  await deps.idempotency.forget(job.id);
  await repo.snapshots.delete({ accountId: job.id });
  await repo.slots.delete({ accountId: job.id });
  await zeroCounts(deps, job.id);
}

/**
 * The erased account's counts go to zero, and all it held reserved (its stored bytes, for an account
 * counted before reservations) goes back to its environment, in one write: conditional on the counts
 * read, so a restore point pruned meanwhile is not given back twice.
 */
async function zeroCounts(deps: Deps, accountId: string): Promise<void> {
  for (let round = 0; round < 10; round++) {
    const a = await deps.repo.accounts.get(accountId);
    if (!a) return;
    const counted = a.storedBytes != null;
    if (counted) await ensureEnvCount(deps, a.envId);
    const reserved = counted ? (a.envReserved ?? a.storedBytes!) : 0;
    const then = reserved !== 0 ? [envReserve(deps, a.envId, -reserved)] : [];
    const filter = {
      _id: accountId,
      storedBytes: a.storedBytes ?? null,
      currentBytes: a.currentBytes ?? null,
      envReserved: a.envReserved ?? null,
    };
    if (
      await deps.repo.accounts.update(
        filter,
        { cleanupPending: false, storedBytes: 0, currentBytes: 0, envReserved: 0 },
        then,
      )
    )
      return;
  }
  throw new Error(`account ${accountId}: its counts kept changing during its cleanup`); // the job comes back
}

/** Erases a slot's snapshots a page at a time, each one's bytes given back to its account. */
async function dropAll(deps: Deps, ownerId: string): Promise<void> {
  for (;;) {
    const page = await deps.repo.snapshots.find(pointsOf(ownerId), { limit: 20 });
    if (page.length === 0) return;
    await Promise.all(page.map((s) => dropSnapshot(deps, s)));
  }
}

/** Work a crash or restart left pending goes back on the queue. */
export async function requeuePending(deps: Deps): Promise<number> {
  const accounts = await deps.repo.accounts.find({ cleanupPending: true });
  const slots = await deps.repo.slots.find({ cleanupPending: true });
  for (const a of accounts) await deps.bus.enqueue(queues.cleanup.name, { kind: "account", id: a._id });
  for (const s of slots) await deps.bus.enqueue(queues.cleanup.name, { kind: "slot", id: s._id });
  return accounts.length + slots.length;
}
