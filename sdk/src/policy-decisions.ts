/**
 * The sync policy's decisions as pure functions of plain numbers (README, Policy flags), so that every
 * client can be checked against the same cases. Times are in ms on one clock; the policy's are seconds.
 */

/** The earliest a push may start: at once, or `minRemoteSyncIntervalSeconds` after the previous one. */
export function pushDueAt(i: { now: number; lastPushAt: number; minRemoteSyncIntervalSeconds: number }): number {
  return Math.max(i.now, i.lastPushAt + i.minRemoteSyncIntervalSeconds * 1000);
}

export type ForceDecision = { action: "push" } | { action: "defer" | "refuse"; retryAt: number };

/** `sync({ force: true })`: pushes at once unless the previous forced sync is within `forceSyncCooldownSeconds`. */
export function forceDecision(i: { now: number; lastForcedAt: number; forceSyncCooldownSeconds: number; onCooldown: "defer" | "refuse" }): ForceDecision {
  const retryAt = i.lastForcedAt + i.forceSyncCooldownSeconds * 1000;
  if (i.now >= retryAt) return { action: "push" };
  return { action: i.onCooldown, retryAt };
}

/** Whether the runtime config is read again now: on every foreground, and `everyMs` after the last read. */
export function configRefreshDueAt(i: { lastReadAt: number; everyMs: number }): number {
  return i.everyMs > 0 ? i.lastReadAt + i.everyMs : Number.POSITIVE_INFINITY;
}
