import type { z } from "zod";
import type { SnapshotList } from "../../../shared/contract/admin.ts";
import { fail } from "../../../shared/contract/errors.ts";
import type { PlanName } from "../../../shared/contract/plans.ts";
import {
  keptPoints,
  type Owner,
  restoreSource,
  historyPlan as sharedHistoryPlan,
  keptVersion as sharedKeptVersion,
} from "../../../shared/synced/restore-points.ts";
import { sha256Hex } from "../../../shared/util/crypto.ts";
import type { Deps } from "../deps.ts";
import type { SnapshotDoc } from "../repo.ts";
import { accountPoints } from "../synced.ts";

/** The operator's history answer (admin.ts declares the schema only). */
export type SnapshotListing = z.infer<typeof SnapshotList>;

/** Whose restore points: an account (its accountData) or a slot document, with its snapshot sequence. */
export type HistoryOwner = Owner;

/** The plan an owner's history is kept under (shared/synced/restore-points.ts). */
export const historyPlan = (deps: Deps, ownerId: string): Promise<PlanName> =>
  sharedHistoryPlan(accountPoints(deps), ownerId);

const sizeOf = (s: SnapshotDoc) => Buffer.byteLength(s.payload, "utf8");

/** The owner's restore points, newest first, complete. */
export async function listRestorePoints(deps: Deps, owner: HistoryOwner): Promise<SnapshotListing["snapshots"]> {
  const points: SnapshotListing["snapshots"] = [];
  for await (const s of keptPoints(accountPoints(deps), owner))
    points.push({ version: s.version, createdAt: s.createdAt, sizeBytes: sizeOf(s) });
  return points;
}

// A cursor names its owner (a hash, not the internal id) and the seq the next page starts below.
const ownerTag = (ownerId: string) => sha256Hex(ownerId).slice(0, 16);
const cursorOf = (ownerId: string, seq: number) => Buffer.from(`${ownerTag(ownerId)}.${seq}`).toString("base64url");

function cursorSeq(ownerId: string, cursor: string): number {
  const [tag, seq] = Buffer.from(cursor, "base64url").toString("utf8").split(".");
  if (tag !== ownerTag(ownerId) || !/^[1-9][0-9]{0,8}$/.test(seq ?? "")) {
    throw fail.invalidRequest([
      { path: "query.cursor", message: "must be the next value of the page before, for this slot or account" },
    ]);
  }
  return Number(seq);
}

/**
 * One page of the owner's restore points for players (docs/using-the-api.md#restoring-a-slot), newest first, with
 * the `next` cursor when older ones remain. A bad or foreign cursor is 400.
 */
export async function restorePointsPage(deps: Deps, owner: HistoryOwner, limit: number, cursor?: string) {
  const before = cursor === undefined ? undefined : cursorSeq(owner._id, cursor);
  const page: { version: number; createdAt: string; payload: Record<string, unknown> }[] = [];
  let next: string | undefined;
  let lastSeq = 0;
  for await (const s of keptPoints(accountPoints(deps), owner, before)) {
    if (page.length === limit) {
      next = cursorOf(owner._id, lastSeq); // an older one remains
      break;
    }
    page.push({ version: s.version, createdAt: s.createdAt, payload: JSON.parse(s.payload) });
    lastSeq = s.seq;
  }
  return { page, ...(next ? { next } : {}) };
}

/** A kept snapshot with this version (the newest such), or null. */
export const keptVersion = (deps: Deps, owner: HistoryOwner, version: number): Promise<SnapshotDoc | null> =>
  sharedKeptVersion(accountPoints(deps), owner, version);

/** The content of restore point `version` and the plan to record the restore under; 404 when not kept. */
export async function restorePoint(
  deps: Deps,
  owner: HistoryOwner,
  version: number,
): Promise<{ payload: Record<string, unknown>; plan: PlanName }> {
  const { point, plan } = await restoreSource(accountPoints(deps), owner, version);
  return { payload: JSON.parse(point.payload), plan };
}
