import { internal, queues } from "../../shared/contract/internal.ts";
import { overviewEndpoints } from "../../shared/contract/overview.ts";
import { adminRoutes, contractRoutes as routes } from "../../shared/contract/routes.ts";
import { endpointsFor } from "../../shared/process/service-endpoints.ts";
import { defineService } from "../../shared/process/service-module.ts";
import { watchGateways } from "../../shared/revocation/cache-drops.ts";
import { rereadForm } from "../../shared/serving/idempotency.ts";
import { envelopeForm } from "../../shared/serving/replay-forms.ts";
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

const { route, idempotentRoute, endpoint, routesOf, idempotentRoutesOf, endpointsOf } = endpointsFor<Deps>();

/**
 * Accounts, slots, sessions and history: every endpoint on one queue group, plus the cleanup worker
 * and the hourly pruning of snapshots past retention.
 */
export const service = defineService<"accounts", Deps>({
  name: "accounts",
  endpoints: [
    // A replay keeps ids and the token, and shows the state as it is then (docs/api-rules.md#idempotent-retries).
    idempotentRoute(routes.createAccount, createAccount, (deps) => envelopeForm((input) => replayView(deps, input))),
    idempotentRoute(routes.createSlot, createSlot, (deps) => rereadForm((m) => createdSlotNow(deps, m))),
    idempotentRoute(routes.archiveSlot, archiveSlot, (deps) => rereadForm((m) => accountNow(deps, m))),
    ...idempotentRoutesOf(routes, { syncAccountData, syncSlot, restoreSlot, restoreAccountData }),
    ...routesOf(routes, { getAccount, deleteAccount, listSlots, getSlot, deleteSlot, listSessions }),
    ...routesOf(routes, { signOutCurrent, signOutSession, slotHistory, slotVersion, dataHistory, dataVersion }),
    route(adminRoutes.getAccount, (deps, m) => adminGetAccount(deps, m.params.accountId, m.query)),
    route(adminRoutes.suspendAccount, (deps, m) => adminSetStatus(deps, m.params.accountId, "suspended")),
    route(adminRoutes.unsuspendAccount, (deps, m) => adminSetStatus(deps, m.params.accountId, "active")),
    route(adminRoutes.revokeSession, (deps, m) => adminRevokeSession(deps, m.params.accountId, m.params.sessionId)),
    route(adminRoutes.exportAccount, (deps, m) => adminExportAccount(deps, m.params.accountId, m.query.cursor)),
    route(adminRoutes.accountDataHistory, (deps, m) => adminDataHistory(deps, m.params.accountId)),
    route(adminRoutes.restoreAccountData, (deps, m) =>
      adminRestoreAccountData(deps, m.params.accountId, m.body.version),
    ),
    route(adminRoutes.slotHistory, (deps, m) => adminSlotHistory(deps, m.params.accountId, m.params.slotId)),
    route(adminRoutes.findAccounts, (deps, m) => adminFindAccounts(deps, m.params.projectId, m.params.env, m.query)),
    route(adminRoutes.getSlot, (deps, m) => adminGetSlot(deps, m.params.accountId, m.params.slotId)),
    route(adminRoutes.getRestorePoint, (deps, m) =>
      adminGetRestorePoint(deps, m.params.accountId, m.params.slotId, m.params.version),
    ),
    route(adminRoutes.deleteAccount, (deps, m) => adminDeleteAccount(deps, m.params.accountId)),
    route(adminRoutes.restoreSlot, (deps, m) =>
      adminRestoreSlot(deps, m.params.accountId, m.params.slotId, m.body.version),
    ),
    // The player desk (docs/operators.md#a-player-says-their-save-is-gone): edits are syncs, with the reason in the audit entry.
    route(adminRoutes.editSlot, (deps, m) => adminEditSlot(deps, m.params.accountId, m.params.slotId, m.body)),
    route(adminRoutes.editAccountData, (deps, m) => adminEditAccountData(deps, m.params.accountId, m.body)),
    route(adminRoutes.getDataRestorePoint, (deps, m) => adminDataVersion(deps, m.params.accountId, m.params.version)),
    route(adminRoutes.findPlayers, (deps, m) => adminFindPlayers(deps, m.query)),
    ...endpointsOf(internal, { resolveSession, issueSession, replayView, openAccount: openReservedAccount }),
    endpoint(overviewEndpoints.accountsOverview, accountsOverview),
    route(adminRoutes.listDeadLetters, adminListDeadLetters),
    route(adminRoutes.retryDeadLetter, (deps, m) => adminRetryDeadLetter(deps, m.params.deadLetterId)),
    route(adminRoutes.discardDeadLetter, (deps, m) => adminDiscardDeadLetter(deps, m.params.deadLetterId)),
  ],
  async open({ bus, store, env, plans }) {
    checkPayloadBudget(plans, bus.maxPayload);
    const repo = await openRepo(store);
    watchGateways(bus);
    const jobs = {
      maxDeliver: env.SAVEPOINT_JOB_MAX_DELIVER,
      backoffMs: env.SAVEPOINT_JOB_BACKOFF_MS,
      ackWaitMs: env.SAVEPOINT_JOB_ACK_WAIT_MS,
    };
    return { repo, jobs };
  },
  async started(deps) {
    deps.bus.work(queues.cleanup.name, (job) => runCleanup(deps, queues.cleanup.schema.parse(job)), {
      ...deps.jobs,
      onDead: (job, failure) => recordDeadLetter(deps, job, failure),
    });
    const requeued = await requeuePending(deps);
    if (requeued > 0) deps.log.info("requeued pending cleanup", { jobs: requeued });
    schedulePruning(deps);
  },
});
