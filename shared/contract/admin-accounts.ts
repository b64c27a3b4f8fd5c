import { z } from "zod";
import { AccountId, Environment, freeForm, SlotId, Timestamp } from "./common.ts";
import { AuthProvider } from "./identity.ts";

/* An operator's view of one account (docs/api-rules.md#operators): its status, sessions, links, history and export. */
export const AdminLinkPath = z.strictObject({ accountId: AccountId, provider: AuthProvider });
export const UnlinkResponse = z
  .object({ accountId: AccountId, provider: AuthProvider, unlinkedAt: Timestamp })
  .meta({ id: "UnlinkResponse" });

/** An identity link as operators see it: never the subject, a hash or a token. */
export const AdminLink = z.object({
  provider: AuthProvider,
  label: z.string(),
  emailHint: z.string().optional(),
  linkedAt: Timestamp,
  lastUsedAt: Timestamp.optional(),
});

export const AdminAccountPath = z.strictObject({ accountId: AccountId });
export const AdminSlotPath = AdminAccountPath.extend({ slotId: SlotId });
export const AdminSessionPath = AdminAccountPath.extend({
  sessionId: z.string().regex(/^ses_[A-Za-z0-9]+$/, "must be a session id (ses_...)"),
});
export const RevokeSessionResponse = z
  .object({ accountId: AccountId, sessionId: z.string(), revokedAt: Timestamp })
  .meta({ id: "RevokeSessionResponse" });

/**
 * Which page of the account's slots (every generation) and sessions the operator view lists; the
 * view always says how many there are in all.
 */
export const AdminAccountQuery = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(200).default(100),
});

/**
 * Operator view of one account: archived and deleted slots and sessions too, a page at a time, never
 * a token or hash. Slots are listed without their `slotInfo`, so a page stays small however many
 * generations an account has had.
 */
export const AdminAccountResponse = z
  .object({
    account: z.object({
      accountId: AccountId,
      projectId: z.string(),
      environment: Environment,
      status: z.enum(["active", "suspended", "deleted"]),
      accountData: freeForm(),
      version: z.int(),
      playerRef: z.string().optional(),
      externalAccountRef: z.object({ provider: z.string(), subject: z.string() }).optional(),
      createdAt: Timestamp,
      updatedAt: Timestamp,
    }),
    /**
     * What the account stores (docs/plans-and-limits.md#storage-budgets): `storedBytes` is the running count the
     * budget is enforced with; the rest is counted afresh for this view.
     */
    storage: z.object({
      storedBytes: z.int(),
      currentStateBytes: z.int(),
      historyBytes: z.int(),
      snapshots: z.int(),
      /** The budget of the plan the newest snapshot was written under; absent when none is stored. */
      budgetBytes: z.int().optional(),
    }),
    slots: z.array(
      z.object({
        slotId: z.string(),
        status: z.enum(["active", "archived", "deleted"]),
        version: z.int(),
        createdAt: Timestamp,
        updatedAt: Timestamp,
      }),
    ),
    sessions: z.array(
      z.object({
        sessionId: z.string(),
        deviceLabel: z.string().optional(),
        createdAt: Timestamp,
        lastUsedAt: Timestamp.optional(),
        revokedAt: Timestamp.optional(),
      }),
    ),
    links: z.array(AdminLink),
    page: z.object({ offset: z.int(), limit: z.int(), slotCount: z.int(), sessionCount: z.int() }),
  })
  .meta({ id: "AdminAccountResponse" });
export type AdminAccountResponse = z.infer<typeof AdminAccountResponse>;

export const AccountStatusResponse = z
  .object({ accountId: AccountId, status: z.enum(["active", "suspended", "deleted"]) })
  .meta({ id: "AccountStatusResponse" });

/** Stripe's subscription statuses, which a workspace's billing status follows (docs/api-rules.md#billing). */

/** Restore points of a slot or of account data, newest first (docs/api-rules.md#history-and-restore). */
export const SnapshotList = z
  .object({
    accountId: AccountId,
    slotId: SlotId.optional(),
    snapshots: z.array(z.object({ version: z.int().min(1), createdAt: Timestamp, sizeBytes: z.int().min(0) })),
  })
  .meta({ id: "SnapshotList" });
export const RestoreRequest = z.strictObject({ version: z.int().min(1) }).meta({ id: "RestoreRequest" });

/** Where an export page starts: the `next` of the page before. */
export const AccountExportQuery = z.object({
  cursor: z
    .string()
    .regex(/^(sessions|slots|history):\d{1,9}$/, "must be the next value of the page before")
    .optional(),
});

/**
 * Every record stored for an account, for a data-subject access request, a page at a time: each page
 * fits one bus message, and `next` names the following page until the last. The account is on every
 * page; the lists of all pages together are the export. No token, hash or subject.
 */
export const AccountExport = z
  .object({
    exportedAt: Timestamp,
    next: z.string().optional(),
    account: AdminAccountResponse.shape.account,
    slots: z.array(
      z.object({
        slotId: z.string(),
        status: z.enum(["active", "archived", "deleted"]),
        version: z.int(),
        slotInfo: freeForm(),
        data: freeForm(),
        createdAt: Timestamp,
        updatedAt: Timestamp,
      }),
    ),
    history: z.array(
      z.object({ slotId: z.string().optional(), version: z.int(), createdAt: Timestamp, payload: freeForm() }),
    ),
    sessions: AdminAccountResponse.shape.sessions,
    links: z.array(AdminLink),
  })
  .meta({ id: "AccountExport" });
export type AccountExport = z.infer<typeof AccountExport>;
