import type { z } from "zod";
import type { SnapshotList } from "../../../shared/contract/admin.ts";
import { fail } from "../../../shared/contract/errors.ts";
import type { PlanCatalog, PlanName } from "../../../shared/contract/plans.ts";
import { sha256Hex } from "../../../shared/util/crypto.ts";
import type { Deps } from "../deps.ts";
import type { SnapshotDoc } from "../repo.ts";

/** The operator's history answer (admin.ts declares the schema only). */
export type SnapshotListing = z.infer<typeof SnapshotList>;

/** Whose restore points: an account (its accountData) or a slot document, with its snapshot sequence. */
export type HistoryOwner = { _id: string; snapshotSeq: number };

/** Snapshots read per page: payloads can be 272 KiB each, so never a whole history at once. */
const pageSize = 50;

/** The catalog's plan that keeps the most: it never hides or trims a restore point another plan keeps. */
function mostGenerous(plans: PlanCatalog): PlanName {
  const names = Object.keys(plans) as PlanName[];
  return names.reduce((best, name) =>
    plans[name].snapshot.keptPerSlot > plans[best].snapshot.keptPerSlot ? name : best,
  );
}

/**
 * The plan an owner's history is kept under. Operator routes carry no tenant, so the plan recorded on
 * the newest snapshot stands in for the workspace's (a plan change shows from the next write on).
 */
export async function historyPlan(deps: Deps, ownerId: string): Promise<PlanName> {
  const newest = await deps.repo.snapshots.findOne({ ownerId }, { field: "seq", direction: -1 });
  return newest?.plan ?? mostGenerous(deps.plans);
}

/**
 * Whether a stored snapshot is a restore point: one of the plan's newest `keptPerSlot` and not past
 * its retention. Storage may briefly hold more (a trim that failed, a smaller plan, pruning not yet
 * run); those are neither listed nor restorable.
 */
function isKept(deps: Deps, plan: PlanName, owner: HistoryOwner, s: SnapshotDoc, now: string): boolean {
  const inCount = s.seq > owner.snapshotSeq - deps.plans[plan].snapshot.keptPerSlot;
  return inCount && (s.expiresAt === undefined || s.expiresAt > now);
}

/**
 * The owner's kept snapshots, newest first, each once, from seq `before` down (exclusive). A sync
 * meanwhile shifts later pages down by one: the repeat is skipped, nothing is missed.
 */
async function* keptSnapshots(
  deps: Deps,
  owner: HistoryOwner,
  before = Number.POSITIVE_INFINITY,
): AsyncGenerator<SnapshotDoc> {
  const plan = await historyPlan(deps, owner._id);
  const now = deps.now().toISOString();
  const oldestKept = owner.snapshotSeq - deps.plans[plan].snapshot.keptPerSlot;
  const seen = new Set<number>();
  for (let skip = 0; ; skip += pageSize) {
    const page = await deps.repo.snapshots.find(
      { ownerId: owner._id },
      { sort: { field: "seq", direction: -1 }, skip, limit: pageSize },
    );
    for (const s of page) {
      if (s.seq >= before || seen.has(s.seq) || !isKept(deps, plan, owner, s, now)) continue;
      seen.add(s.seq);
      yield s;
    }
    if (page.length < pageSize || page.at(-1)!.seq <= oldestKept) return;
  }
}

const sizeOf = (s: SnapshotDoc) => Buffer.byteLength(s.payload, "utf8");

/** The owner's restore points, newest first, complete. */
export async function listRestorePoints(deps: Deps, owner: HistoryOwner): Promise<SnapshotListing["snapshots"]> {
  const points: SnapshotListing["snapshots"] = [];
  for await (const s of keptSnapshots(deps, owner))
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
  for await (const s of keptSnapshots(deps, owner, before)) {
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
export async function keptVersion(deps: Deps, owner: HistoryOwner, version: number): Promise<SnapshotDoc | null> {
  const plan = await historyPlan(deps, owner._id);
  const snapshot = await deps.repo.snapshots.findOne({ ownerId: owner._id, version }, { field: "seq", direction: -1 });
  return snapshot && isKept(deps, plan, owner, snapshot, deps.now().toISOString()) ? snapshot : null;
}

/** The content of restore point `version` and the plan to record the restore under; 404 when not kept. */
export async function restorePoint(
  deps: Deps,
  owner: HistoryOwner,
  version: number,
): Promise<{ payload: Record<string, unknown>; plan: PlanName }> {
  const snapshot = await keptVersion(deps, owner, version);
  if (!snapshot) throw fail.notFound(`Restore point ${version}`);
  return { payload: JSON.parse(snapshot.payload), plan: await historyPlan(deps, owner._id) };
}
