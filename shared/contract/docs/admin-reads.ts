import type { RouteDocs } from "../route.ts";
import { missing } from "./admin-errors.ts";

/** What the operator reads do and guarantee (and some of their writes), and the errors only they answer with. */
export const adminReadDocs = {
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
