import type { Collection } from "../../../shared/store/port.ts";

/** An active slot's seat: one of `cap` numbered seats of its account, unique across the collection. */
export const seatKeyOf = (accountId: string, seat: number) => `${accountId}#${seat}`;

/** What the migration reads of a slot; the repository's slot document is one. */
type SeatedSlot = { _id: string; accountId: string; status: string; seatKey: string };

/**
 * Slots written before the active-slot cap have no `seatKey`. Gives each one, before the unique
 * index on it is built: MongoDB would index the missing keys as duplicate nulls and refuse the index,
 * and on SQLite seatless active slots would not count against the cap. Active slots take the lowest
 * seats their account has free; retired ones a key of their own. Idempotent, and a no-op once done.
 */
export async function giveLegacySlotsSeats(slots: Collection<SeatedSlot>): Promise<number> {
  const bare = await slots.find({ seatKey: null } as never);
  for (const slot of bare) {
    let seatKey = `${slot.status}:${slot._id}`;
    if (slot.status === "active") {
      const taken = new Set((await slots.find({ accountId: slot.accountId, status: "active" })).map((s) => s.seatKey));
      let n = 0;
      while (taken.has(seatKeyOf(slot.accountId, n))) n++;
      seatKey = seatKeyOf(slot.accountId, n);
    }
    await slots.update({ _id: slot._id, seatKey: null } as never, { seatKey });
  }
  return bare.length;
}
