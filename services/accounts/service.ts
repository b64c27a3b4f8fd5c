import { serveEndpoint, serveIdempotentRoute, serveRoute } from "../../shared/bus/serve.ts";
import { internal, queues } from "../../shared/contract/internal.ts";
import { adminRoutes, contractRoutes as routes } from "../../shared/contract/routes.ts";
import { adminGetAccount, adminRevokeSession, adminSetStatus } from "./admin-account.ts";
import { archiveSlot } from "./archive-slot.ts";
import { requeuePending, runCleanup } from "./cleanup.ts";
import { createAccount, openAccount } from "./create-account.ts";
import { createSlot } from "./create-slot.ts";
import { adminDiscardDeadLetter, adminListDeadLetters, adminRetryDeadLetter, recordDeadLetter } from "./dead-letters.ts";
import { deleteAccount } from "./delete-account.ts";
import { deleteSlot } from "./delete-slot.ts";
import { adminDataHistory } from "./data-history.ts";
import type { Deps } from "./deps.ts";
import { adminExportAccount } from "./export-account.ts";
import { getAccount } from "./get-account.ts";
import { getSlot } from "./get-slot.ts";
import { issueSession } from "./issue-session.ts";
import { listSlots } from "./list-slots.ts";
import { schedulePruning } from "./prune-snapshots.ts";
import { resolveSession } from "./resolve-session.ts";
import { adminRestoreAccountData } from "./restore-account-data.ts";
import { adminRestoreSlot } from "./restore-slot.ts";
import { adminSlotHistory } from "./slot-history.ts";
import { syncAccountData } from "./sync-account-data.ts";
import { syncSlot } from "./sync-slot.ts";

export const group = "accounts";

/**
 * Accounts, slots, sessions and history: every endpoint on one queue group, plus the cleanup worker
 * and the hourly pruning of snapshots past retention.
 */
export async function startAccounts(deps: Deps): Promise<void> {
  const { bus, idempotency } = deps;
  serveIdempotentRoute(bus, group, routes.createAccount, idempotency, (m) => createAccount(deps, m));
  serveRoute(bus, group, routes.getAccount, (m) => getAccount(deps, m));
  serveRoute(bus, group, routes.deleteAccount, (m) => deleteAccount(deps, m));
  serveIdempotentRoute(bus, group, routes.syncAccountData, idempotency, (m, key) => syncAccountData(deps, m, key));
  serveRoute(bus, group, routes.listSlots, (m) => listSlots(deps, m));
  serveIdempotentRoute(bus, group, routes.createSlot, idempotency, (m) => createSlot(deps, m));
  serveRoute(bus, group, routes.getSlot, (m) => getSlot(deps, m));
  serveIdempotentRoute(bus, group, routes.syncSlot, idempotency, (m, key) => syncSlot(deps, m, key));
  serveIdempotentRoute(bus, group, routes.archiveSlot, idempotency, (m) => archiveSlot(deps, m));
  serveRoute(bus, group, routes.deleteSlot, (m) => deleteSlot(deps, m));
  serveRoute(bus, group, adminRoutes.getAccount, (m) => adminGetAccount(deps, m.params.accountId, m.query));
  serveRoute(bus, group, adminRoutes.suspendAccount, (m) => adminSetStatus(deps, m.params.accountId, "suspended"));
  serveRoute(bus, group, adminRoutes.unsuspendAccount, (m) => adminSetStatus(deps, m.params.accountId, "active"));
  serveRoute(bus, group, adminRoutes.revokeSession, (m) => adminRevokeSession(deps, m.params.accountId, m.params.sessionId));
  serveRoute(bus, group, adminRoutes.exportAccount, (m) => adminExportAccount(deps, m.params.accountId, m.query.cursor));
  serveRoute(bus, group, adminRoutes.accountDataHistory, (m) => adminDataHistory(deps, m.params.accountId));
  serveRoute(bus, group, adminRoutes.restoreAccountData, (m) => adminRestoreAccountData(deps, m.params.accountId, m.body.version));
  serveRoute(bus, group, adminRoutes.slotHistory, (m) => adminSlotHistory(deps, m.params.accountId, m.params.slotId));
  serveRoute(bus, group, adminRoutes.restoreSlot, (m) => adminRestoreSlot(deps, m.params.accountId, m.params.slotId, m.body.version));
  serveEndpoint(bus, group, internal.resolveSession, (input) => resolveSession(deps, input));
  serveEndpoint(bus, group, internal.issueSession, (input) => issueSession(deps, input));
  serveEndpoint(bus, group, internal.openAccount, (input) => openAccount(deps, input.tenant, {}, input.deviceLabel));

  serveRoute(bus, group, adminRoutes.listDeadLetters, () => adminListDeadLetters(deps));
  serveRoute(bus, group, adminRoutes.retryDeadLetter, (m) => adminRetryDeadLetter(deps, m.params.deadLetterId));
  serveRoute(bus, group, adminRoutes.discardDeadLetter, (m) => adminDiscardDeadLetter(deps, m.params.deadLetterId));

  bus.work(queues.cleanup.name, (job) => runCleanup(deps, queues.cleanup.schema.parse(job)), {
    ...deps.jobs,
    onDead: (job, failure) => recordDeadLetter(deps, job, failure),
  });
  const requeued = await requeuePending(deps);
  if (requeued > 0) deps.log.info("requeued pending cleanup", { jobs: requeued });
  schedulePruning(deps);
}
