import type { RouteDocs } from "../route.ts";

import { deleted, missing } from "./admin-errors.ts";
import { adminReadDocs } from "./admin-reads.ts";

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
  ...adminReadDocs,
} satisfies Record<string, RouteDocs>;
