import type { Collection as MongoCollection } from "mongodb";
import { randomBase62 } from "../util/ids.ts";

export type Lease = { _id: string; owner: string; expiresAt: number };

// Long enough for one conditional write on a loaded server; short, because a holder killed mid-write
// leaves its lease behind and every writer of that document waits it out.
export const leaseMs = 3_000;
/**
 * How long a writer waits its turn, in leases. A conditional update gives up sooner, as soon as its
 * version moved on. An increment always applies, and is most often the follower of a write that
 * already stands (a save's byte count): giving up would lose the count, so it waits through a long
 * queue of holders of a hot document (an environment's count, moved by every save) on a loaded server.
 * Bounded still: a service's shutdown waits for its handlers, and a deployment gives it 30 s at most.
 */
const waitLeases = { conditional: 2, increment: 5 };

/**
 * Per-document mutual exclusion through a unique `_id` insert, for servers whose findAndModify is not
 * atomic across connections (FerretDB 1.x reads, then writes by `_id`: two writers can both match the
 * same version). Insert uniqueness is enforced by the server, so one holder at a time; a holder that
 * died leaves a lease that expires after `leaseMs`. While it waits, a writer whose update can no longer
 * apply (`stillWanted` false: the version moved on) gives up with null instead of queueing; without
 * `stillWanted` (an increment always applies) it waits its turn.
 */
export async function withLease<R>(
  leases: MongoCollection<Lease>,
  key: string,
  work: () => Promise<R>,
  stillWanted?: () => Promise<boolean>,
): Promise<R | null> {
  const owner = randomBase62(12);
  const deadline = Date.now() + (stillWanted ? waitLeases.conditional : waitLeases.increment) * leaseMs;
  for (let attempt = 0; ; attempt++) {
    try {
      await leases.insertOne({ _id: key, owner, expiresAt: Date.now() + leaseMs });
      break;
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
      const held = await leases.findOne({ _id: key });
      if (held && held.expiresAt < Date.now()) await leases.deleteOne({ _id: key, owner: held.owner });
      if (stillWanted && !(await stillWanted())) return null;
      if (Date.now() > deadline) throw new Error(`lease on ${key} not acquired`);
      // Backing off: waiters that spin make every write of the server slower.
      await Bun.sleep((5 + Math.min(attempt * 5, 100)) * Math.random());
    }
  }
  try {
    return await work();
  } finally {
    await leases.deleteOne({ _id: key, owner });
  }
}
