import type { Collection, Doc } from "./port.ts";

/** The UTC day `days` after `at`, as `YYYY-MM-DD`: the day a short-lived record may be pruned. */
export const dayAfter = (at: Date, days = 1) => new Date(at.getTime() + days * 86_400_000).toISOString().slice(0, 10);

/**
 * Deletes every document whose `field` (a UTC day, `YYYY-MM-DD`) is before `today`, a whole day at a
 * time, oldest first. The store filters by equality only, but it sorts: the oldest day is the first
 * dated document in `field` order, so no range query is needed, however long nothing was pruned.
 * Documents without the field (written before it existed) sort first and are stepped over, never
 * deleted. Idempotent: any number of copies may run it at once.
 */
export async function deleteDaysBefore<T extends Doc>(
  c: Collection<T>,
  field: keyof T & string,
  today: string,
): Promise<number> {
  const undated = await c.count({ [field]: null } as never);
  let deleted = 0;
  let previous: unknown;
  for (;;) {
    const [oldest] = await c.find({} as never, { sort: { field, direction: 1 }, skip: undated, limit: 1 });
    const day = oldest?.[field];
    // A repeat means the store did not delete that day: stop rather than loop.
    if (typeof day !== "string" || day >= today || day === previous) return deleted;
    deleted += await c.delete({ [field]: day } as never);
    previous = day;
  }
}
