import { callEndpoint } from "../../shared/bus/serve.ts";
import { type CleanupJob, internal, queues } from "../../shared/contract/internal.ts";
import { failpoint } from "../../shared/failpoint.ts";
import type { Deps } from "./deps.ts";

/**
 * Erases what a deletion left behind. Idempotent: a job delivered twice, or re-enqueued at start for a
 * tombstone still marked pending, does no harm.
 */
export async function runCleanup(deps: Deps, job: CleanupJob): Promise<void> {
  const { repo } = deps;
  const at = deps.now().toISOString();
  if (job.kind === "slot") {
    await repo.snapshots.delete({ ownerId: job.id });
    await repo.slots.update({ _id: job.id }, { cleanupPending: false });
    return;
  }
  // Session documents stay, revoked, so a deleted account's old session still answers 410.
  await repo.sessions.updateMany({ accountId: job.id, revokedAt: null }, { revokedAt: at });
  // The transfer and auth-bridge services own codes and links; while one is out of reach the job
  // fails and comes back.
  failpoint("cleanup.mid-job");
  await callEndpoint(deps.bus, internal.eraseTransferCodes, { accountId: job.id });
  await callEndpoint(deps.bus, internal.eraseLinks, { accountId: job.id });
  await repo.snapshots.delete({ accountId: job.id });
  await repo.slots.delete({ accountId: job.id });
  await repo.accounts.update({ _id: job.id }, { cleanupPending: false });
}

/** Work a crash or restart left pending goes back on the queue. */
export async function requeuePending(deps: Deps): Promise<number> {
  const accounts = await deps.repo.accounts.find({ cleanupPending: true });
  const slots = await deps.repo.slots.find({ cleanupPending: true });
  for (const a of accounts) await deps.bus.enqueue(queues.cleanup.name, { kind: "account", id: a._id });
  for (const s of slots) await deps.bus.enqueue(queues.cleanup.name, { kind: "slot", id: s._id });
  return accounts.length + slots.length;
}
