import type { AccountResponse, AccountSlotSummary, SlotResponse } from "../../shared/contract/accounts.ts";
import type { AccountStatus } from "../../shared/contract/internal.ts";
import { type HitDoc, hitIndexes } from "../../shared/limits/window-counter.ts";
import type { Collection, Store } from "../../shared/store/port.ts";
import type { Versioned } from "../../shared/store/versioned.ts";
import type { Point } from "../../shared/synced/restore-points.ts";
import { JsonText } from "../../shared/util/json-text.ts";
import type { AccountUsageDoc } from "./environment-budget.ts";
import { giveLegacySlotsSeats } from "./slots/seats.ts";

/**
 * What accountData and a slot share: a versioned document that syncs, keeps a numbered history
 * (history/), is deleted as a tombstone that the cleanup worker erases, and carries the stamp of its
 * last keyed write.
 */
export type SyncedDoc = Versioned & {
  createdAt: string;
  updatedAt: string;
  lastSyncAt?: string;
  lastSnapshotAt?: string;
  snapshotSeq: number;
  /** SHA-256 of the newest snapshot's payload: an identical next one is not stored (history.ts). */
  snapshotHash?: string;
  deletedAt?: string;
  cleanupPending?: boolean;
  /** The last keyed write's stamp (shared/serving/write-stamp.ts). */
  lastWrite?: string;
};

/** accountData is stored as serialized JSON: free-form keys never become queryable BSON. */
export type AccountDoc = SyncedDoc & {
  envId: string;
  status: AccountStatus;
  accountData: string;
  playerRef?: string;
  externalProvider?: string;
  externalSubject?: string;
  /**
   * Bytes the account stores: accountData, every active and archived slot's slotInfo and data, and
   * every snapshot's payload. Moved by atomic increments in the commits that change them (account-bytes.ts).
   */
  storedBytes?: number;
  /** The part of `storedBytes` that is current state (accountData and slots): what is never evicted. */
  currentBytes?: number;
  /**
   * Bytes the account holds reserved from its environment's budget, at least `storedBytes` but for a
   * race (environment-budget.ts): its writes within it touch no environment document.
   */
  envReserved?: number;
  /** When restore points were last evicted for the budget; the write their deletes ride on (evict-history.ts). */
  evictedAt?: string;
  /** UTC days (`YYYY-MM-DD`) of the last session use and of creation, counted by the dashboard (admin/overview.ts). */
  activeDay?: string;
  createdDay?: string;
};

export type SlotStatus = "active" | "archived" | "deleted";

/**
 * One document per slot incarnation. `activeKey` is `<accountId>/<slotId>` while active and unique
 * per document otherwise: a unique index on it allows one active slot per id without partial indexes
 * (which FerretDB lacks), and lets an archived id be reused. `seatKey` works the same way for the
 * plan's active-slot cap: an active slot holds one of the account's numbered seats
 * (`<accountId>#<n>`, n below the cap), so two concurrent creates can never take the last one both.
 */
export type SlotDoc = SyncedDoc & {
  accountId: string;
  envId: string;
  slotId: string;
  activeKey: string;
  seatKey: string;
  status: SlotStatus;
  slotInfo: string;
  data: string;
};

/** Keyed by the SHA-256 of the token; the token itself is never stored. */
export type SessionDoc = {
  _id: string;
  sessionId: string;
  accountId: string;
  envId: string;
  createdAt: string;
  deviceLabel?: string;
  /** Written at most once a minute per session (sessions.ts). */
  lastUsedAt?: string;
  /** The deadline fixed with `lastUsedAt` (sessions.ts, expiresAtOf); absent on sessions stored before it was. */
  expiresAt?: string;
  revokedAt?: string;
  /** `YYYY-MM-DD`: deleted once this day has passed (prune-sessions.ts); absent only on sessions stored before it was. */
  pruneDay?: string;
};

/**
 * A restore point: `<ownerId>:<seq>`, where the owner is an account (accountData) or a slot document.
 * `plan`, `expiresAt` and `expiresDay` are fixed when it is written (history.ts); snapshots written
 * before they were recorded lack them until the pruner gives them an expiry.
 */
export type SnapshotDoc = Point & {
  accountId: string;
  /** `YYYY-MM-DD`, the first UTC day starting at or after `expiresAt`: what pruning deletes by. */
  expiresDay?: string;
};

/** A cleanup job out of deliveries (dead-letters.ts). `job` is its JSON. */
export type DeadLetterDoc = {
  _id: string;
  queue: string;
  job: string;
  deliveries: number;
  error: string;
  failedAt: string;
};

export interface Repo {
  /** Account creations by client IP (docs/api-rules.md#limits-and-plans: 30 a minute unless the project says otherwise). */
  creations: Collection<HitDoc>;
  accounts: Collection<AccountDoc>;
  slots: Collection<SlotDoc>;
  sessions: Collection<SessionDoc>;
  snapshots: Collection<SnapshotDoc>;
  deadLetters: Collection<DeadLetterDoc>;
  /** What each environment's accounts store together, by envId (environment-budget.ts). */
  usage: Collection<AccountUsageDoc>;
}

export async function openRepo(store: Store): Promise<Repo> {
  return {
    creations: await store.collection<HitDoc>("accountCreations", hitIndexes),
    accounts: await store.collection<AccountDoc>(
      "accounts",
      [
        { name: "cleanup", fields: ["cleanupPending"] },
        { name: "env_player", fields: ["envId", "playerRef"] },
        { name: "env_external", fields: ["envId", "externalProvider", "externalSubject"] },
        // The dashboard's counts and its largest accounts (admin/overview.ts).
        { name: "env_active_day", fields: ["envId", "activeDay"] },
        { name: "env_created_day", fields: ["envId", "createdDay"] },
        { name: "env_stored_bytes", fields: ["envId", "storedBytes"] },
        // An operator's lookup in every environment (admin/admin-find.ts).
        { name: "player_ref", fields: ["playerRef"] },
        { name: "external_ref", fields: ["externalProvider", "externalSubject"] },
      ],
      { apart: ["accountData", "storedBytes", "currentBytes", "envReserved"] },
    ),
    slots: await giveLegacySlotsSeats(await store.collection<SlotDoc>("slots")).then(() =>
      store.collection<SlotDoc>(
        "slots",
        [
          { name: "active_key", fields: ["activeKey"], unique: true },
          { name: "seat_key", fields: ["seatKey"], unique: true },
          { name: "account_slot", fields: ["accountId", "slotId"] },
          { name: "account_status", fields: ["accountId", "status"] },
        ],
        { apart: ["data"] },
      ),
    ),
    sessions: await store.collection<SessionDoc>("sessions", [
      { name: "session_id", fields: ["sessionId"], unique: true },
      { name: "account", fields: ["accountId"] },
      { name: "prune_day", fields: ["pruneDay"] },
    ]),
    deadLetters: await store.collection<DeadLetterDoc>("deadLetters"),
    usage: await store.collection<AccountUsageDoc>("accountUsage"),
    snapshots: await store.collection<SnapshotDoc>(
      "snapshots",
      [
        // An owner's points are found by their ids' prefix (shared/synced/restore-points.ts, pointsOf): an index
        // of owners cost each save an entry written at a random place and one deleted (issue 30).
        { name: "owner", fields: ["ownerId"], dropped: true },
        // `account_age` serves every lookup by account: a second index on its first field only cost each
        // save an index entry written and one deleted (issue 30).
        { name: "account", fields: ["accountId"], dropped: true },
        // The oldest of an account first, when its storage budget is full (evict-history.ts).
        { name: "account_age", fields: ["accountId", "createdAt"] },
        // `_id` too, so MongoDB serves the pruner's "oldest day first" sort from the index.
        { name: "expires_day", fields: ["expiresDay", "_id"] },
      ],
      // Restore points: the pruner's expiry mark is their one update (prune-snapshots.ts).
      { apart: ["payload"], writeOnce: true },
    ),
  };
}

export const activeKeyOf = (accountId: string, slotId: string) => `${accountId}/${slotId}`;
/** A slot leaving `active`: its keys become unique to the document, freeing the id and the seat. */
export const retire = (status: Exclude<SlotStatus, "active">, docId: string) => ({
  status,
  activeKey: `${status}:${docId}`,
  seatKey: `${status}:${docId}`,
});

export const toSlotSummary = (s: SlotDoc): AccountSlotSummary => ({
  slotId: s.slotId,
  slotInfo: JSON.parse(s.slotInfo),
  version: s.version,
  status: "active",
  updatedAt: s.updatedAt,
});

export const toSlotResponse = (s: SlotDoc): SlotResponse => ({ ...toSlotSummary(s), data: JSON.parse(s.data) });

/** A slot as a read or a conflict answers it: `data` is the stored text, served without a parse (json-text.ts). */
export const toSlotAnswer = (s: SlotDoc): SlotResponse => ({
  ...toSlotSummary(s),
  data: new JsonText(s.data) as unknown as SlotResponse["data"],
});

export const toAccountResponse = (a: AccountDoc, activeSlots: SlotDoc[]): AccountResponse => ({
  accountId: a._id,
  accountData: JSON.parse(a.accountData),
  slots: activeSlots.map(toSlotSummary),
  version: a.version,
});

export const activeSlotsOf = (repo: Repo, accountId: string) =>
  repo.slots.find({ accountId, status: "active" }, { sort: { field: "createdAt", direction: 1 } });
