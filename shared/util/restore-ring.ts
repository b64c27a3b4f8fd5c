import type { Collection, Write } from "../store/port.ts";

/**
 * The writes that record restore point `seq` of an owner and drop the one that falls out of a ring of
 * `kept` (docs/api-rules.md#history-and-restore). Points are numbered per owner, so the one to drop is
 * known without a read, and both ride with the write they record. Slots, account data and saves keep
 * their history by this one rule.
 */
export function restorePointWrites<T extends { _id: string; ownerId: string; seq: number }>(into: Collection<T>, point: T, kept: number): Write[] {
  const writes: Write[] = [{ insert: point, into }];
  if (point.seq > kept) writes.push({ delete: { _id: `${point.ownerId}:${point.seq - kept}` }, from: into });
  return writes;
}
