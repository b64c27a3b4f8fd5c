import { expect, test } from "bun:test";
import { type Collection, MongoClient } from "mongodb";
import { createMongoStore } from "../../shared/store/mongo.ts";
import { leaseMs } from "../../shared/store/mongo-lease.ts";
import type { Store } from "../../shared/store/port.ts";
import { mongo, uniqueDb } from "../helpers/infra.ts";

type Usage = { _id: string; bytes: number };
type Lease = { _id: string; owner: string; expiresAt: number };

/** A store on a database of its own, its `_leases` read directly, and whether the server needs them (FerretDB). */
async function onOwnDatabase(run: (s: { store: Store; leases: Collection<Lease>; leased: boolean }) => Promise<void>) {
  const { url } = await mongo();
  const db = uniqueDb("lease");
  const store = await createMongoStore(url, db);
  const client = new MongoClient(url);
  try {
    const leased = "ferretdbVersion" in (await client.db(db).admin().command({ buildInfo: 1 }));
    await run({ store, leases: client.db(db).collection<Lease>("_leases"), leased });
  } finally {
    await client
      .db(db)
      .dropDatabase()
      .catch(() => {});
    await client.close();
    await store.close();
  }
}

/**
 * A hot document's lease (FerretDB: shared/store/mongo-lease.ts) held by one writer after another for
 * longer than a conditional update waits: an increment, the byte count of a save that already stands,
 * waits its turn and applies, instead of failing and leaving the count short (a save race of the
 * distributed suite once ended with an environment's count at -114 bytes so).
 */
test(
  "an increment waits through a queue of lease holders longer than a conditional update would, and applies",
  () =>
    onOwnDatabase(async ({ store, leases, leased }) => {
      const usage = await store.collection<Usage>("usage");
      await usage.insert({ _id: "env", bytes: 100 });
      // Other writers hold the lease in turn, each renewing it before it expires, for longer than a
      // conditional update waits (the waiter never sees it expired): only a patient increment gets it.
      const key = "usage:env";
      const queueMs = 3 * leaseMs;
      await leases.insertOne({ _id: key, owner: "others", expiresAt: Date.now() + leaseMs });
      const renew = setInterval(
        () => void leases.updateOne({ _id: key }, { $set: { expiresAt: Date.now() + leaseMs } }).catch(() => {}),
        leaseMs / 4,
      );
      let beforeRelease: number | undefined;
      const released = Bun.sleep(queueMs).then(async () => {
        clearInterval(renew);
        beforeRelease = (await usage.get("env"))?.bytes;
        await leases.deleteOne({ _id: key, owner: "others" });
      });
      const counted = usage.increment("env", "bytes", -114, {});
      await released;
      await counted;
      // FerretDB's increment waited for the lease; MongoDB's, atomic without one, did not.
      expect({ leased, beforeRelease }).toEqual({ leased, beforeRelease: leased ? 100 : -14 });
      expect((await usage.get("env"))?.bytes).toBe(-14);
    }),
  60_000,
);

/**
 * A restore point's trim (a delete by id) follows every save: on FerretDB its lease was two of a
 * save's eleven store commands. A write-once collection's delete takes none; any other's still waits
 * for an update of the same document in progress.
 */
test(
  "a write-once collection's delete by id does not wait for the document's lease; another collection's does",
  () =>
    onOwnDatabase(async ({ store, leases, leased }) => {
      const points = await store.collection<Usage>("points", [], { writeOnce: true });
      const usage = await store.collection<Usage>("usage");
      await points.insert({ _id: "p:1", bytes: 1 });
      await usage.insert({ _id: "env", bytes: 1 });
      // Both documents' leases held, as by an update in progress, for longer than the test runs.
      for (const key of ["points:p:1", "usage:env"])
        await leases.insertOne({ _id: key, owner: "updater", expiresAt: Date.now() + 60_000 });

      expect(await points.delete({ _id: "p:1" })).toBe(1);
      expect(await points.get("p:1")).toBeNull();

      const deleting = usage.delete({ _id: "env" });
      await Bun.sleep(500);
      // FerretDB's delete waits for the updater; MongoDB's takes no lease at all.
      expect({ leased, kept: (await usage.get("env")) !== null }).toEqual({ leased, kept: leased });
      await leases.deleteMany({ owner: "updater" });
      expect(await deleting).toBe(1);
      expect(await usage.get("env")).toBeNull();
    }),
  60_000,
);
