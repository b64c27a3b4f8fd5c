import type { PlanName } from "../../shared/contract/plans.ts";
import type { Save } from "../../shared/contract/runtime.ts";
import { type HitDoc, hitIndexes } from "../../shared/limits/window-counter.ts";
import { type CollectionsOf, collection, openCollections } from "../../shared/store/collections.ts";
import type { Store } from "../../shared/store/port.ts";
import type { Point } from "../../shared/synced/restore-points.ts";

/**
 * One save per id and environment (`_id` is `<envId>/<saveId>`): a stage key never sees a prod save.
 * `metadata` and `state` are serialized JSON, as every free-form value in the stores.
 */
export type SaveDoc = {
  _id: string;
  envId: string;
  saveId: string;
  externalUserId: string;
  metadata: string;
  state: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  /** The stamp of the keyed write that made this version (shared/serving/write-stamp.ts). */
  lastWrite?: string;
  /** Whose restore points these are: new for each creation, so a re-created id never sees the erased history. */
  historyId?: string;
  snapshotSeq?: number;
  lastSnapshotAt?: string;
};

/** A restore point of a save (`_id` is `<historyId>:<seq>`); `payload` is `{metadata, state}` as JSON. */
export type SaveSnapshotDoc = Point & { plan: PlanName; expiresAt: string };

/** An environment's saves' stored bytes (metadata and state), moved by increments with each write. */
export type SaveUsageDoc = { _id: string; bytes: number };

/** What is left of an erased save: its id and when it was deleted, nothing of the player's. */
export type SaveTombstoneDoc = { _id: string; deletedAt: string };

const collections = {
  saves: collection<SaveDoc>("saves", [], { apart: ["metadata", "state"] }),
  /** A save's points are found by their ids' prefix (shared/synced/restore-points.ts, pointsOf): no owner index. */
  snapshots: collection<SaveSnapshotDoc>("saveSnapshots", [{ name: "owner", fields: ["ownerId"], dropped: true }], {
    apart: ["payload"],
    writeOnce: true,
  }),
  tombstones: collection<SaveTombstoneDoc>("saveTombstones"),
  /** An environment's saves' stored bytes (docs/plans-and-limits.md#storage-budgets). */
  usage: collection<SaveUsageDoc>("saveUsage"),
  /** Save creations by client IP (docs/plans-and-limits.md#storage-budgets: like account creations). */
  creations: collection<HitDoc>("saveCreations", hitIndexes),
};

export type Repo = CollectionsOf<typeof collections>;

export const openRepo = (store: Store): Promise<Repo> => openCollections(store, collections);

/** Saves written before restore points existed use their document id. */
export const historyIdOf = (d: SaveDoc) => d.historyId ?? d._id;

export const saveDocId = (envId: string, saveId: string) => `${envId}/${saveId}`;

export const toSave = (d: SaveDoc): Save => ({
  saveId: d.saveId,
  externalUserId: d.externalUserId,
  metadata: JSON.parse(d.metadata),
  state: JSON.parse(d.state),
  version: d.version,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});
