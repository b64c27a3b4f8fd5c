import type { RouteDocs } from "../route.ts";

const replayGone =
  "A retry with the `Idempotency-Key` of an earlier answer whose account has since been deleted: no session token of it is handed out again.";

/** What the account routes do and guarantee, and the errors only they answer with. */
export const accountDocs = {
  createAccount: {
    description:
      "Creates an account at version 1 with optional `accountData` and, with `slot`, its first slot (also at version 1), and opens the first " +
      "device session. The answer's `accountSessionToken` is shown only here: store it on the device and never log it. `playerRef` and " +
      "`externalAccountRef` are stored for your own reference; they are no lookup key and prove nothing. Each client IP may create 30 " +
      "accounts a minute (the project can change this).",
    errorCases: [
      {
        code: "payload_too_large",
        when:
          "`accountData` or `slot.data` is over 262,144 bytes, or `slot.slotInfo` over 16,384, as UTF-8 JSON " +
          "(`details.field`).",
      },
      { code: "slot_limit_reached", when: "`slot` is sent but the plan allows no active slot (`details.limit`)." },
      { code: "account_deleted", when: replayGone },
      {
        code: "unauthorized",
        when: "A retry with the `Idempotency-Key` of an earlier answer whose session has since been revoked.",
      },
      {
        code: "rate_limited",
        when: "This client IP created the project's number of accounts this minute (30 by default).",
      },
    ],
  },
  getAccount: {
    description:
      "Reads the account view: `accountData` with its `version`, and a summary of every active slot (no slot `data`; read a slot for that). " +
      "Archived and deleted slots are not listed. The list is always complete: the plan's active-slot cap keeps it small.",
    errorCases: [],
  },
  deleteAccount: {
    description:
      "Deletes the account permanently: it is unreadable before the answer is sent, every session of it is revoked and every slot erased. " +
      "Erasing its history, identity links, transfer codes and sessions is queued (`cleanupQueued: true`) and finished by a background " +
      "worker that survives restarts. Afterwards its sessions answer 410 `account_deleted`.",
    errorCases: [],
  },
  syncAccountData: {
    description:
      "Writes `accountData` when `baseVersion` is the account's current `version`: `accountData` replaces it whole, `accountDataPatch` " +
      "merges top-level keys (a `null` removes that key). Send exactly one of the two. Accepted, the version goes up by exactly 1 and the " +
      "answer is small: the new `version`, `updatedAt`, `historyRetained` and any `warnings`. A stale `baseVersion` changes nothing and " +
      'answers 409 `status: "conflict"` with the server\'s account and what you sent, so the client can merge and retry from the ' +
      "server's version. The version check and the write are one atomic step: of concurrent writers from one base, exactly one is accepted.",
    errorCases: [
      { code: "invalid_request", when: "Both `accountData` and `accountDataPatch` are sent, or neither." },
      {
        code: "payload_too_large",
        when:
          "`accountData` or `accountDataPatch`, or the patch merged into the stored data, is over 262,144 bytes " +
          "as UTF-8 JSON.",
      },
      {
        code: "conflict",
        when:
          '`baseVersion` is not the current version. The body is no error envelope but `status: "conflict"` ' +
          "with the server's `account` and what you sent.",
      },
    ],
  },
  listSessions: {
    description:
      "Lists the account's signed-in devices: each session's id, `deviceLabel`, when it was created and last used, and `current` for the " +
      "one that asks. Never any token material. Signed-out, revoked and expired sessions are not listed.",
    errorCases: [],
  },
  signOutCurrent: {
    description:
      "Signs this device out: its session stops working at once, on every gateway copy, and its next request is 401 `session_revoked`. " +
      "Signing out again answers the same `revokedAt`.",
    errorCases: [],
  },
  signOutSession: {
    description:
      "Signs another device of the account out (a lost phone): that session is refused at once on every gateway copy with 401 " +
      "`session_revoked`; the caller keeps working.",
    errorCases: [
      {
        code: "not_found",
        when: "The account has no session with this id (another account's session ids are not found either).",
      },
    ],
  },
  dataHistory: {
    description:
      "Lists a page of the restore points of the account's `accountData`, newest first: each kept version, when it was written and its " +
      "`sizeBytes` (UTF-8 bytes of the JSON). Pass `next` as `cursor` for the next, older page. Which versions are kept follows the plan.",
    errorCases: [{ code: "invalid_request", when: "`cursor` is not the `next` of a page of this account's history." }],
  },
  dataVersion: {
    description: "Reads one kept restore point of `accountData` in full, with when it was written.",
    errorCases: [{ code: "not_found", when: "This version is not kept (pruned past the plan's count or retention)." }],
  },
  restoreAccountData: {
    description:
      "Writes a kept restore point's `accountData` as the next version, when `baseVersion` is the current `version`, like a sync: " +
      "history is never rewritten and the replaced content stays a restore point, so the restore can itself be undone. An " +
      "`Idempotency-Key` makes a retry answer as the first.",
    errorCases: [
      {
        code: "conflict",
        when: "`baseVersion` is not the current version: the AccountConflictResponse, whose client side is the restored `accountData`.",
      },
      { code: "not_found", when: "This version is not kept." },
    ],
  },
} satisfies Record<string, RouteDocs>;
