import type { Collection, Write } from "./port.ts";

/**
 * The rules of a numbered history of restore points (docs/api-rules.md#history-and-restore), for
 * slots, account data and saves alike: when a write becomes one, when one expires, the writes that
 * record one and drop the one falling out of the plan's count, and when a restore keeps what it replaces.
 */

const dayMs = 86_400_000;

/**
 * When a snapshot written at `at` falls out of the plan's retention: `expiresAt` exactly, and
 * `expiresDay`, the first UTC day that starts at or after it. The store filters by equality only, so
 * pruning deletes whole days and never deletes a snapshot before its time.
 */
export function expiryOf(at: Date, retentionDays: number): { expiresAt: string; expiresDay: string } {
  const expires = at.getTime() + retentionDays * dayMs;
  const dayStart = Math.ceil(expires / dayMs) * dayMs;
  return { expiresAt: new Date(expires).toISOString(), expiresDay: new Date(dayStart).toISOString().slice(0, 10) };
}

/** Whether a write at `now` becomes a restore point when the newest is from `lastAt` (0: every write). */
export function restorePointDue(everySeconds: number, lastAt: string | undefined, now: Date): boolean {
  if (everySeconds === 0 || !lastAt) return true;
  return now.getTime() - Date.parse(lastAt) >= everySeconds * 1000;
}

/**
 * The id of restore point `seq` of an owner, `<ownerId>:<seq>`: every point of an owner begins with
 * `pointId(ownerId, "")`, which is how its history is found (shared/synced/restore-points.ts, pointsOf).
 */
export const pointId = (ownerId: string, seq: number | "") => `${ownerId}:${seq}`;

/**
 * The writes that record restore point `seq` of an owner and drop the one that falls out of a ring of
 * `kept`. Points are numbered per owner, so the one to drop is known without a read, and both ride
 * with the write they record.
 */
export function restorePointWrites<T extends { _id: string; ownerId: string; seq: number }>(
  into: Collection<T>,
  point: T,
  kept: number,
): Write[] {
  const writes: Write[] = [{ insert: point, into }];
  if (point.seq > kept) writes.push({ delete: { _id: pointId(point.ownerId, point.seq - kept) }, from: into });
  return writes;
}

/**
 * Whether a restore must also record what it replaces as a restore point (every restore can be
 * undone). Not when a kept restore point already holds it (`heldSeq`) and survives
 * the one trim the restored point's own write makes, of a history numbered up to `seq` that keeps `kept`.
 */
export const replacedNeedsKeeping = (heldSeq: number | undefined, seq: number, kept: number): boolean =>
  heldSeq === undefined || heldSeq <= seq + 1 - kept;
