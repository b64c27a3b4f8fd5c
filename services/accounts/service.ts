import { internal, queues } from "../../shared/contract/internal.ts";
import { overviewEndpoints } from "../../shared/contract/overview.ts";
import { adminRoutes, contractRoutes as routes } from "../../shared/contract/routes.ts";
import { defineService } from "../../shared/process/service-module.ts";
import { watchGateways } from "../../shared/revocation/cache-drops.ts";
import { openIdempotency, rereadForm } from "../../shared/serving/idempotency.ts";
import { envelopeForm } from "../../shared/serving/replay-forms.ts";
import { serveEndpoint, serveIdempotentRoute, serveRoute } from "../../shared/serving/serve.ts";
import { adminGetAccount, adminRevokeSession, adminSetStatus } from "./admin/admin-account.ts";
import { adminEditAccountData, adminEditSlot } from "./admin/admin-edit.ts";
import { adminFindPlayers } from "./admin/admin-find.ts";
import { adminDeleteAccount, adminFindAccounts, adminGetRestorePoint, adminGetSlot } from "./admin/admin-lookup.ts";
import {
  adminDiscardDeadLetter,
  adminListDeadLetters,
  adminRetryDeadLetter,
  recordDeadLetter,
} from "./admin/dead-letters.ts";
import { adminExportAccount } from "./admin/export-account.ts";
import { accountsOverview } from "./admin/overview.ts";
import { requeuePending, runCleanup } from "./cleanup.ts";
import { createAccount, openReservedAccount } from "./create-account.ts";
import { deleteAccount } from "./delete-account.ts";
import type { Deps } from "./deps.ts";
import { getAccount } from "./get-account.ts";
import { adminDataHistory, adminDataVersion } from "./history/data-history.ts";
import { dataHistory, dataVersion, slotHistory, slotVersion } from "./history/player-history.ts";
import { schedulePruning } from "./history/prune-snapshots.ts";
import { adminRestoreAccountData, restoreAccountData } from "./history/restore-account-data.ts";
import { adminRestoreSlot, restoreSlot } from "./history/restore-slot.ts";
import { adminSlotHistory } from "./history/slot-history.ts";
import { checkPayloadBudget } from "./payload-budget.ts";
import { replayView } from "./replay-view.ts";
import { openRepo } from "./repo.ts";
import { issueSession } from "./sessions/issue-session.ts";
import { listSessions, signOutCurrent, signOutSession } from "./sessions/player-sessions.ts";
import { resolveSession } from "./sessions/resolve-session.ts";
import { accountNow, archiveSlot } from "./slots/archive-slot.ts";
import { createdSlotNow, createSlot } from "./slots/create-slot.ts";
import { deleteSlot } from "./slots/delete-slot.ts";
import { getSlot } from "./slots/get-slot.ts";
import { listSlots } from "./slots/list-slots.ts";
import { syncSlot } from "./slots/sync-slot.ts";
import { syncAccountData } from "./sync-account-data.ts";

const group = "accounts";

/**
 * Accounts, slots, sessions and history: every endpoint on one queue group, plus the cleanup worker
 * and the hourly pruning of snapshots past retention.
 */
export const service = defineService({
  name: group,
  async start({ bus, store, env, plans, log, now }) {
    checkPayloadBudget(plans, bus.maxPayload);
    const jobs = {
      maxDeliver: env.SAVEPOINT_JOB_MAX_DELIVER,
      backoffMs: env.SAVEPOINT_JOB_BACKOFF_MS,
      ackWaitMs: env.SAVEPOINT_JOB_ACK_WAIT_MS,
    };
    const deps: Deps = {
      repo: await openRepo(store),
      bus,
      plans,
      log,
      now,
      jobs,
      idempotency: await openIdempotency(store, log, now, {
        dailyCap: env.SAVEPOINT_IDEMPOTENCY_DAILY_CAP,
      }),
    };
    watchGateways(bus);
    await serve(deps);
    return deps;
  },
});

async function serve(deps: Deps): Promise<void> {
  const { bus, idempotency } = deps;
  // A replay keeps ids and the token, and shows the state as it is then (docs/api-rules.md#idempotent-retries).
  const envelope = envelopeForm((input) => replayView(deps, input));
  serveIdempotentRoute(bus, group, routes.createAccount, idempotency, (m) => createAccount(deps, m), envelope);
  serveRoute(bus, group, routes.getAccount, (m) => getAccount(deps, m));
  serveRoute(bus, group, routes.deleteAccount, (m) => deleteAccount(deps, m));
  serveIdempotentRoute(bus, group, routes.syncAccountData, idempotency, (m, key) => syncAccountData(deps, m, key));
  serveRoute(bus, group, routes.listSlots, (m) => listSlots(deps, m));
  serveIdempotentRoute(
    bus,
    group,
    routes.createSlot,
    idempotency,
    (m) => createSlot(deps, m),
    rereadForm((m) => createdSlotNow(deps, m)),
  );
  serveRoute(bus, group, routes.getSlot, (m) => getSlot(deps, m));
  serveIdempotentRoute(bus, group, routes.syncSlot, idempotency, (m, key) => syncSlot(deps, m, key));
  serveIdempotentRoute(
    bus,
    group,
    routes.archiveSlot,
    idempotency,
    (m) => archiveSlot(deps, m),
    rereadForm((m) => accountNow(deps, m)),
  );
  serveRoute(bus, group, routes.deleteSlot, (m) => deleteSlot(deps, m));
  serveRoute(bus, group, routes.listSessions, (m) => listSessions(deps, m));
  serveRoute(bus, group, routes.signOutCurrent, (m) => signOutCurrent(deps, m));
  serveRoute(bus, group, routes.signOutSession, (m) => signOutSession(deps, m));
  serveRoute(bus, group, routes.slotHistory, (m) => slotHistory(deps, m));
  serveRoute(bus, group, routes.slotVersion, (m) => slotVersion(deps, m));
  serveIdempotentRoute(bus, group, routes.restoreSlot, idempotency, (m, key) => restoreSlot(deps, m, key));
  serveRoute(bus, group, routes.dataHistory, (m) => dataHistory(deps, m));
  serveRoute(bus, group, routes.dataVersion, (m) => dataVersion(deps, m));
  serveIdempotentRoute(bus, group, routes.restoreAccountData, idempotency, (m, key) =>
    restoreAccountData(deps, m, key),
  );
  serveRoute(bus, group, adminRoutes.getAccount, (m) => adminGetAccount(deps, m.params.accountId, m.query));
  serveRoute(bus, group, adminRoutes.suspendAccount, (m) => adminSetStatus(deps, m.params.accountId, "suspended"));
  serveRoute(bus, group, adminRoutes.unsuspendAccount, (m) => adminSetStatus(deps, m.params.accountId, "active"));
  serveRoute(bus, group, adminRoutes.revokeSession, (m) =>
    adminRevokeSession(deps, m.params.accountId, m.params.sessionId),
  );
  serveRoute(bus, group, adminRoutes.exportAccount, (m) =>
    adminExportAccount(deps, m.params.accountId, m.query.cursor),
  );
  serveRoute(bus, group, adminRoutes.accountDataHistory, (m) => adminDataHistory(deps, m.params.accountId));
  serveRoute(bus, group, adminRoutes.restoreAccountData, (m) =>
    adminRestoreAccountData(deps, m.params.accountId, m.body.version),
  );
  serveRoute(bus, group, adminRoutes.slotHistory, (m) => adminSlotHistory(deps, m.params.accountId, m.params.slotId));
  serveRoute(bus, group, adminRoutes.findAccounts, (m) =>
    adminFindAccounts(deps, m.params.projectId, m.params.env, m.query),
  );
  serveRoute(bus, group, adminRoutes.getSlot, (m) => adminGetSlot(deps, m.params.accountId, m.params.slotId));
  serveRoute(bus, group, adminRoutes.getRestorePoint, (m) =>
    adminGetRestorePoint(deps, m.params.accountId, m.params.slotId, m.params.version),
  );
  serveRoute(bus, group, adminRoutes.deleteAccount, (m) => adminDeleteAccount(deps, m.params.accountId));
  serveRoute(bus, group, adminRoutes.restoreSlot, (m) =>
    adminRestoreSlot(deps, m.params.accountId, m.params.slotId, m.body.version),
  );
  // The player desk (docs/operators.md#a-player-says-their-save-is-gone): edits are syncs, with the reason in the audit entry.
  serveRoute(bus, group, adminRoutes.editSlot, (m) => adminEditSlot(deps, m.params.accountId, m.params.slotId, m.body));
  serveRoute(bus, group, adminRoutes.editAccountData, (m) => adminEditAccountData(deps, m.params.accountId, m.body));
  serveRoute(bus, group, adminRoutes.getDataRestorePoint, (m) =>
    adminDataVersion(deps, m.params.accountId, m.params.version),
  );
  serveRoute(bus, group, adminRoutes.findPlayers, (m) => adminFindPlayers(deps, m.query));
  serveEndpoint(bus, group, internal.resolveSession, (input) => resolveSession(deps, input));
  serveEndpoint(bus, group, overviewEndpoints.accountsOverview, (input) => accountsOverview(deps, input));
  serveEndpoint(bus, group, internal.issueSession, (input) => issueSession(deps, input));
  serveEndpoint(bus, group, internal.replayView, (input) => replayView(deps, input));
  serveEndpoint(bus, group, internal.openAccount, (input) => openReservedAccount(deps, input));

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
