import type { RouteDocs } from "../route.ts";

const slotArchived =
  "No active slot has this id but an archived one does (`details.slotId`): an archived slot cannot be changed.";
const slotDeleted = "No active or archived slot has this id but a deleted one does (`details.slotId`).";
const slotMissing = "No slot of the account ever had this id.";

/** What the slot routes do and guarantee, and the errors only they answer with. */
export const slotDocs = {
  listSlots: {
    description:
      "Lists the summaries (`slotInfo`, `version`, `updatedAt`, no `data`) of every active slot of the account. Archived and deleted slots " +
      "are not listed. The list is always complete: the plan's active-slot cap (32 by default) bounds it. Load one slot's `data` with its own route.",
    errorCases: [],
  },
  createSlot: {
    description:
      "Creates a named active slot at version 1 with `data` and optional `slotInfo`. The id is free when no active slot uses it: an archived " +
      "or deleted slot's id can be used again. The answer has the slot's fields at the top level and, beside them, `accountId`, `account` " +
      "(the account view after the create), `slot` (the same slot) and `syncPolicy`, so clients that expect either shape work.",
    errorCases: [
      {
        code: "payload_too_large",
        when: "`data` is over 262,144 bytes or `slotInfo` over 16,384, as UTF-8 JSON (`details.field`).",
      },
      { code: "slot_already_exists", when: "An active slot of the account already has this `slotId`." },
      {
        code: "slot_limit_reached",
        when: "The account already holds its plan's number of active slots (`details.limit`); archive or delete one first.",
      },
      {
        code: "slot_archived",
        when: "A retry with the `Idempotency-Key` of a create whose slot has since been archived.",
      },
    ],
  },
  getSlot: {
    description:
      "Reads the active slot with this id, with its full `data`. Its `version` is what the next sync sends as `baseVersion`.",
    errorCases: [{ code: "not_found", when: "No active slot has this id (an archived slot is not read here)." }],
  },
  deleteSlot: {
    description:
      "Deletes the active slot with this id permanently, or, when none is active, the newest archived one. It is unreadable before the " +
      "answer is sent; erasing its history is queued (`cleanupQueued: true`). A second delete of the same id answers 200 with " +
      "`alreadyDeleted: true` and the first `deletedAt`.",
    errorCases: [{ code: "not_found", when: slotMissing }],
  },
  syncSlot: {
    description:
      "Writes the slot's `data` (and `slotInfo`, when sent; otherwise it is kept) when `baseVersion` is the slot's current `version`. " +
      "Accepted, the version goes up by exactly 1 and the answer is small: the new `version`, `updatedAt`, `historyRetained` and any " +
      "`warnings`, since the client already holds what it sent. A stale `baseVersion` never overwrites: it changes nothing and answers 409 " +
      "`status: \"conflict\"` with the server's slot and what you sent, so the client can merge both and retry from the server's version. " +
      "The version check and the write are one atomic step: of concurrent writers from one base, exactly one is accepted.",
    errorCases: [
      {
        code: "payload_too_large",
        when: "`data` is over 262,144 bytes or `slotInfo` over 16,384, as UTF-8 JSON (`details.field`).",
      },
      {
        code: "conflict",
        when:
          '`baseVersion` is not the current version. The body is no error envelope but `status: "conflict"` ' +
          "with the server's `slot` and what you sent.",
      },
      { code: "slot_archived", when: slotArchived },
      { code: "slot_deleted", when: slotDeleted },
      { code: "not_found", when: slotMissing },
    ],
  },
  archiveSlot: {
    description:
      "Retires the active slot with this id: it leaves the account's slot list and active-slot routes, its id becomes free for a new slot, " +
      "and it no longer counts against the plan's cap. The answer is the account view without it.",
    errorCases: [
      { code: "slot_archived", when: "The slot with this id is already archived (`details.slotId`)." },
      { code: "slot_deleted", when: slotDeleted },
      { code: "not_found", when: slotMissing },
    ],
  },
  slotHistory: {
    description:
      "Lists a page of the active slot's restore points, newest first: each kept version with when it was written, its `sizeBytes` (UTF-8 " +
      'bytes of its `data` as JSON) and its `slotInfo`, so a game can show "level 12, 2 hours ago". Pass `next` as `cursor` for the ' +
      "next, older page. Which versions are kept follows the plan's snapshot rules; a restore keeps both what it replaced and what it restored.",
    errorCases: [
      { code: "not_found", when: "No active slot has this id (archived and deleted slots are not listed)." },
      { code: "invalid_request", when: "`cursor` is not the `next` of a page of this slot's history." },
    ],
  },
  slotVersion: {
    description:
      "Reads one kept restore point of the active slot in full: its `slotInfo` and `data`, and when it was written.",
    errorCases: [
      {
        code: "not_found",
        when: "No active slot has this id, or this version is not kept (pruned past the plan's count or retention).",
      },
    ],
  },
  restoreSlot: {
    description:
      "Writes a kept restore point's `slotInfo` and `data` as the slot's next version, when `baseVersion` is the slot's current `version`, " +
      "like a sync: history is never rewritten, and the content it replaces stays a restore point, so the restore can itself be undone. " +
      "Another device still on an older version gets the usual 409 on its next sync. An `Idempotency-Key` makes a retry answer as the first.",
    errorCases: [
      {
        code: "conflict",
        when: "`baseVersion` is not the slot's current version: the SlotConflictResponse, whose client side is the restored content.",
      },
      { code: "not_found", when: "No active or archived slot has this id, or this version is not kept." },
      { code: "slot_archived", when: slotArchived },
      { code: "slot_deleted", when: slotDeleted },
    ],
  },
} satisfies Record<string, RouteDocs>;
