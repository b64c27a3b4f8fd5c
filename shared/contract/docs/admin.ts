import type { RouteDocs } from "../route.ts";

const missing = (what: string) => ({ code: "not_found", when: `No ${what} has this id.` }) as const;
const deleted = {
  code: "account_deleted",
  when: "The account has been deleted; its history is queued for erasure.",
} as const;

/** What the operator routes do and guarantee, and the errors only they answer with. */
export const adminDocs = {
  createWorkspace: {
    description:
      "Creates a workspace, the unit of plan and billing. Without `plan` it starts on the deployment's default plan (`SAVEPOINT_DEFAULT_PLAN`).",
    errorCases: [],
  },
  updateWorkspace: {
    description:
      "Changes a workspace's plan or billing status by hand; every gateway applies the new entitlements at once.",
    errorCases: [missing("workspace")],
  },
  createProject: {
    description:
      "Creates a project (one game: sync policy, settings, history rules) with its `stage` and `prod` environments.",
    errorCases: [missing("workspace")],
  },
  createRuntimeKey: {
    description:
      "Creates a runtime key `spk_<env>_...` for one environment. The key is in this answer only: it is stored as a hash and cannot be " +
      "shown again. Games ship it; it identifies the game and environment, not a player.",
    errorCases: [missing("project")],
  },
  listRuntimeKeys: {
    description: "Lists a project's runtime keys with their ids, labels and revocation times; never a key itself.",
    errorCases: [missing("project")],
  },
  getRuntimeKey: {
    description:
      "Shows one runtime key by its id (as `key list` and the audit log name it): its project, workspace, environment, label, " +
      "creation, last use and revocation; never the key itself, which is shown only when it is made.",
    errorCases: [missing("runtime key")],
  },
  revokeRuntimeKey: {
    description: "Revokes a runtime key: every gateway refuses it with 401 from the moment this answers.",
    errorCases: [missing("runtime key")],
  },
  setSyncPolicy: {
    description:
      "Changes the project's sync policy; omitted fields keep their value. The change is the policy's next version, kept with its author " +
      "(`X-Savepoint-Actor`) and the optional `note`. Clients read it from the runtime config and from account " +
      "envelopes, and syncs sooner than `minRemoteSyncIntervalSeconds` get the `sync_interval_below_policy` warning.",
    errorCases: [missing("project")],
  },
  setSettings: {
    description:
      "Changes the project's longest transfer-code lifetime and its per-IP, per-session and per-key rate limits; omitted fields keep their value.",
    errorCases: [missing("project")],
  },
  publishGameConfig: {
    description:
      "Publishes a JSON object as the environment's game config: its `version` goes up by 1 and `checksum` is the SHA-256 of the stored " +
      "bytes. Clients holding an older version get it on their next runtime-config read.",
    errorCases: [
      missing("project"),
      { code: "payload_too_large", when: "`data` is over 524,288 bytes as UTF-8 JSON." },
    ],
  },
  exportAccount: {
    description:
      "Every record stored for an account, in pages (`cursor`), for a data-subject access request. Never a token, a hash or an identity's subject.",
    errorCases: [missing("account")],
  },
  accountDataHistory: {
    description:
      "Lists the kept restore points of an account's `accountData`, newest first, as the plan's snapshot rules keep them.",
    errorCases: [missing("account"), deleted],
  },
  restoreAccountData: {
    description:
      "Writes a restore point's content as the account's next `accountData` version; history is never rewritten. A device still on an " +
      "older version gets the usual 409 on its next sync.",
    errorCases: [{ code: "not_found", when: "No account has this id, or the restore point is not kept." }, deleted],
  },
  slotHistory: {
    description:
      "Lists the kept restore points of a slot (the active one with this id, else the newest archived one), newest first.",
    errorCases: [
      { code: "not_found", when: "No account has this id, or it has no active or archived slot with this id." },
      deleted,
    ],
  },
  restoreSlot: {
    description:
      "Writes a restore point's content as the active slot's next version; history is never rewritten. A device still on an older " +
      "version gets the usual 409 on its next sync.",
    errorCases: [
      { code: "not_found", when: "No account, slot or kept restore point has this id or version." },
      { code: "slot_archived", when: "The slot with this id is archived: only an active slot is restored." },
      { code: "slot_deleted", when: "The slot with this id has been deleted." },
      deleted,
    ],
  },
  getAccount: {
    description:
      "The operator's view of an account in any environment: status, data, every slot (archived too), sessions (no tokens) and identity links.",
    errorCases: [missing("account")],
  },
  suspendAccount: {
    description:
      "Suspends an account: its sessions are refused with 403 `account_suspended` at once, on every gateway. Suspending twice changes nothing.",
    errorCases: [missing("account"), { code: "account_deleted", when: "The account has been deleted." }],
  },
  unsuspendAccount: {
    description: "Lifts a suspension: the account's sessions work again at once. Lifting it twice changes nothing.",
    errorCases: [missing("account"), { code: "account_deleted", when: "The account has been deleted." }],
  },
  revokeSession: {
    description:
      "Revokes one device's session: every gateway refuses it with 401 from the moment this answers. The account's other devices keep theirs.",
    errorCases: [{ code: "not_found", when: "The account has no session with this id." }],
  },
  setAuthProvider: {
    description:
      "Sets up or changes an identity provider for one environment: `projectId` for Firebase, `projectRef` for Supabase, `domain` and " +
      "`audience` for Auth0; `jwksUrl` overrides the public key set (emulators, tests).",
    errorCases: [
      { code: "invalid_request", when: "A field the provider needs is missing (`details.issues` names it)." },
    ],
  },
  unlinkProvider: {
    description:
      "Removes an account's link to a provider's identity: that identity can sign in again, and then opens a new account.",
    errorCases: [{ code: "not_found", when: "The account has no link to this provider." }],
  },
  listDeadLetters: {
    description: "Lists cleanup jobs (erasures after a deletion) that failed on every delivery, with their last error.",
    errorCases: [],
  },
  retryDeadLetter: {
    description: "Queues a dead-lettered cleanup job again, with fresh deliveries.",
    errorCases: [
      missing("dead letter"),
      { code: "invalid_request", when: "The job is malformed and can never run: discard it." },
    ],
  },
  discardDeadLetter: {
    description: "Drops a dead-lettered cleanup job for good.",
    errorCases: [missing("dead letter")],
  },
  listWorkspaces: {
    description:
      "Every workspace with its id, name, plan and billing status, oldest first. Paged: `limit` (at most 200) and `cursor`; the answer's " +
      "`next` names the following page. `npx savepoint workspace list` follows every page.",
    errorCases: [
      { code: "invalid_request", when: "`limit` is out of range, or `cursor` is not one this listing gave." },
    ],
  },
  getWorkspace: {
    description: "One workspace: its name, plan, billing status and Stripe customer, if any.",
    errorCases: [{ code: "not_found", when: "No workspace has this id." }],
  },
  listProjects: {
    description: "The workspace's projects, oldest first, paged like the workspace list.",
    errorCases: [
      { code: "not_found", when: "No workspace has this id." },
      { code: "invalid_request", when: "`limit` is out of range, or `cursor` is not one this listing gave." },
    ],
  },
  getProject: {
    description:
      "One project with its workspace, its sync policy and its settings (rate limits, allowed origins, session idle days).",
    errorCases: [{ code: "not_found", when: "No project has this id." }],
  },
  getSyncPolicy: {
    description: "The project's sync policy as route 2 serves it to clients.",
    errorCases: [{ code: "not_found", when: "No project has this id." }],
  },
  listSyncPolicyVersions: {
    description:
      "Every version of the project's sync policy, newest first: who made it (`X-Savepoint-Actor`), when, its note, which version a " +
      "rollback copied, and the policy itself. A project changed before versions were kept has one version, 1, its policy as it is.",
    errorCases: [{ code: "not_found", when: "No project has this id." }],
  },
  getSyncPolicyVersion: {
    description: "One version of the project's sync policy, kept for comparison and rollback.",
    errorCases: [{ code: "not_found", when: "No project has this id, or it has no such version." }],
  },
  rollbackSyncPolicy: {
    description:
      "Makes an earlier version's policy current again as the next version (history is never rewritten), with its author and an " +
      "optional note: clients get it from the runtime config on their next read, with a new ETag.",
    errorCases: [{ code: "not_found", when: "No project has this id, or it has no such version." }],
  },
  getSettings: {
    description:
      "The project's settings: transfer-code lifetime, rate limits, allowed origins and session idle days (the defaults until changed).",
    errorCases: [{ code: "not_found", when: "No project has this id." }],
  },
  getGameConfig: {
    description:
      "The environment's live game config with its data: version 0 and no data until something is published.",
    errorCases: [{ code: "not_found", when: "No project has this id." }],
  },
  listGameConfigVersions: {
    description:
      "Every published version of the environment's game config, newest first, with checksum, size and which version a rollback copied.",
    errorCases: [{ code: "not_found", when: "No project has this id." }],
  },
  getGameConfigVersion: {
    description: "One published version's content, kept for comparison and rollback.",
    errorCases: [{ code: "not_found", when: "No project has this id, or no such version was published." }],
  },
  rollbackGameConfig: {
    description:
      "Publishes an earlier version's content again as a new version (history is never rewritten): clients holding the newer version get " +
      "the old content under the new number on their next runtime-config read.",
    errorCases: [{ code: "not_found", when: "No project has this id, or no such version was published." }],
  },
  getOverview: {
    description:
      "An environment's last `minutes` (default 60, at most 1440) minute by minute: requests, syncs, sync conflicts, 4xx, 5xx and " +
      "p50/p99 latency (the upper bound of the histogram bucket that holds them), counted by every gateway copy and flushed every " +
      "`SAVEPOINT_TRAFFIC_FLUSH_MS` (10 s); players active and accounts created today and since yesterday (UTC days); the ten " +
      "largest accounts by stored bytes, history included; dead letters; the plan's limits against use.",
    errorCases: [{ code: "not_found", when: "No project has this id." }],
  },
  findAccounts: {
    description:
      "Finds an environment's accounts by `playerRef`, or by an external account reference (`provider` and `subject`). Operators only: " +
      "never a runtime lookup, and no proof of who a player is.",
    errorCases: [
      { code: "invalid_request", when: "Neither `playerRef` nor both `provider` and `subject` are given." },
      { code: "not_found", when: "No project has this id." },
    ],
  },
  getSlot: {
    description:
      "A slot with its data as stored now, archived ones too (the newest generation of that id), for support.",
    errorCases: [{ code: "not_found", when: "The account has no slot with this id." }],
  },
  getRestorePoint: {
    description: "One restore point of a slot, with its slotInfo and data, to compare or restore.",
    errorCases: [{ code: "not_found", when: "The slot has no kept restore point at this version." }],
  },
  deleteAccount: {
    description:
      "Deletes an account as route 7 does (a data-subject erasure request): unreadable at once, sessions revoked, erasure of history, " +
      "links and codes queued.",
    errorCases: [{ code: "not_found", when: "No account has this id." }],
  },
  getSave: {
    description: "A save of the save-based model in one environment of the project, as the runtime would load it.",
    errorCases: [{ code: "not_found", when: "No project has this id, or no save has this id in that environment." }],
  },
  listAudit: {
    description:
      "Every change made through the admin API (console, CLI or script), newest first: who (`X-Savepoint-Actor`), when, the route, its " +
      "target and the before and after values. Filters: target, action, since; paged. Kept for `SAVEPOINT_AUDIT_RETENTION_DAYS` (90).",
    errorCases: [],
  },
  saveHistory: {
    description:
      "Lists the kept restore points of a save of the save-based model in one environment, newest first. What is kept follows the " +
      "workspace's plan, as for slots; a restore keeps both what it replaced and what it restored.",
    errorCases: [{ code: "not_found", when: "No save has this id in this project's environment." }],
  },
  restoreSave: {
    description:
      "Writes a restore point's `metadata` and `state` as the save's next version; history is never rewritten, and the replaced " +
      "content stays a restore point. A device still on an older version gets the usual 409 on its next sync.",
    errorCases: [
      { code: "not_found", when: "No save has this id in this project's environment, or this version is not kept." },
    ],
  },
  deleteSave: {
    description:
      "Erases a save and its restore points (a player's erasure request), as the runtime route does: a second delete answers " +
      "`alreadyDeleted: true`, and the id can be created again at version 1.",
    errorCases: [{ code: "not_found", when: "No save ever had this id in this project's environment." }],
  },
  createOperator: {
    description:
      "Creates a named operator with a role (`owner`, `support` or `viewer`) and answers its token, `spo_...`, once: only its SHA-256 is " +
      "stored. The operator sends it as `Authorization: Bearer spo_...` (CLI: `SAVEPOINT_OPERATOR_TOKEN`) or signs in to the console with it.",
    errorCases: [],
  },
  listOperators: {
    description:
      "Every operator, oldest first, revoked ones too: id, name, role, who created it and when. Never a token.",
    errorCases: [],
  },
  getOperator: {
    description: "One operator by id, as the list shows it; the audit log reads it around each operator change.",
    errorCases: [missing("operator")],
  },
  revokeOperator: {
    description:
      "Revokes an operator's token: every gateway copy drops it before the answer, so its next request (API, CLI or console session) is 401. " +
      "Revoking twice answers the first time.",
    errorCases: [missing("operator")],
  },
  getAuditEntry: {
    description:
      "One audit entry with its before and after whole, however large: the list shows a value over 64 KB as `{ large: true, sizeBytes }`, " +
      "and this route gives it in full.",
    errorCases: [missing("audit entry")],
  },
} satisfies Record<string, RouteDocs>;
