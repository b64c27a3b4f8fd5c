import type { SyncAcceptedResponse } from "../../../shared/contract/accounts.ts";
import type { PlanName } from "../../../shared/contract/plans.ts";
import type { Collection, Doc, Filter, Write } from "../../../shared/store/port.ts";
import { updateKeepingWrite } from "../../../shared/synced/keep-write.ts";
import { pointDue, pointWrites } from "../../../shared/synced/restore-points.ts";
import type { Deps } from "../deps.ts";
import type { SnapshotDoc } from "../repo.ts";
import { accountPoints } from "../synced.ts";

/** Where an account's data or a slot stands in its sync history. */
type Tracked = { lastSnapshotAt?: string; lastSyncAt?: string; snapshotSeq: number; snapshotHash?: string };

/** Whether an accepted write becomes a restore point under the plan's snapshot interval. */
export const snapshotDue = (deps: Deps, plan: PlanName, lastSnapshotAt: string | undefined, now: Date): boolean =>
  pointDue(deps.plans, plan, lastSnapshotAt, now);

/**
 * The writes that record snapshot `seq` of an owner (shared/synced/restore-points.ts), each snapshot
 * recorded with its account: the account's storage budget counts it.
 */
export function snapshotWrites(
  deps: Deps,
  plan: PlanName,
  snap: { ownerId: string; accountId: string; seq: number; version: number; payload: unknown; at: Date; json?: string },
): Write[] {
  const { accountId, payload, json = JSON.stringify(payload), ...point } = snap;
  return pointWrites(
    accountPoints(deps),
    plan,
    { ...point, json },
    (record): SnapshotDoc => ({ ...record, accountId }),
  );
}

/** The conditional update of a sync or restore and, when due, its snapshot (shared/synced/keep-write.ts). */
export async function updateWithHistory<T extends Doc>(
  deps: Deps,
  c: Collection<T>,
  write: { filter: Filter<T>; changes: Partial<T>; followers: Write[] },
  snapshot: boolean,
): Promise<{ updated: T | null; historyRetained: boolean }> {
  const { updated, followed } = await updateKeepingWrite(deps.log, c, write, "snapshot not written");
  return { updated, historyRetained: followed && Boolean(updated && snapshot) };
}

/** `sync_interval_below_policy` when this sync came sooner than the policy asks clients to wait. */
export function intervalWarnings(
  lastSyncAt: string | undefined,
  minIntervalSeconds: number,
  now: Date,
): string[] | undefined {
  if (!lastSyncAt) return undefined;
  return now.getTime() - Date.parse(lastSyncAt) < minIntervalSeconds * 1000
    ? ["sync_interval_below_policy"]
    : undefined;
}

/** How many restore points a restore records (1 or 2), the new content's hash, and whether the budget has room. */
type StampOptions = { restorePoints?: number; hash?: string; room?: boolean };

/**
 * What an accepted sync (or an operator's restore) stamps on the document, decided before the
 * conditional update so the snapshot sequence moves in the same atomic write as the data. `hash`
 * is the new content's: the same as the owner's newest snapshot is not stored again. `room` false:
 * the storage budget has no room for a restore point (storage.ts).
 */
export function syncStamp(
  deps: Deps,
  plan: PlanName,
  doc: Tracked,
  kind: "sync" | "restore" = "sync",
  options: StampOptions = {},
) {
  const { restorePoints = 1, hash, room = true } = options;
  const now = deps.now();
  const at = now.toISOString();
  // A restore is always a restore point, so the operator's change can itself be undone.
  const wanted =
    kind === "restore" ||
    (snapshotDue(deps, plan, doc.lastSnapshotAt, now) && (hash === undefined || hash !== doc.snapshotHash));
  const snapshot = wanted && room;
  // A restore may record two: the content it replaces, then the restored content.
  const seq = doc.snapshotSeq + (snapshot ? (kind === "restore" ? restorePoints : 1) : 0);
  // A restore is not a device's sync: it must not make the next real sync look too soon.
  const synced = kind === "sync" ? { lastSyncAt: at } : {};
  const changes = {
    updatedAt: at,
    ...synced,
    ...(snapshot ? { lastSnapshotAt: at, snapshotSeq: seq, snapshotHash: hash } : {}),
  };
  return { now, at, snapshot, seq, changes };
}

/** The answer to a sync that was written. */
export function acceptedSync(
  version: number,
  stamp: { at: string },
  historyRetained: boolean,
  warnings: string[] | undefined,
): SyncAcceptedResponse {
  return { status: "accepted", version, updatedAt: stamp.at, historyRetained, ...(warnings ? { warnings } : {}) };
}
