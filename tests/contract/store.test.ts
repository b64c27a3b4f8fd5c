import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createMongoStore } from "../../shared/store/mongo.ts";
import {
  BudgetExceededError,
  type Collection,
  DuplicateKeyError,
  type Filter,
  FollowerFailedError,
  QuotaExceededError,
  type Store,
  StoreUnavailableError,
} from "../../shared/store/port.ts";
import { mongo, uniqueDb } from "../helpers/infra.ts";
import { freePort } from "../helpers/ports.ts";
import { storeAdapters } from "../helpers/store-adapters.ts";

type Item = {
  _id: string;
  owner: string;
  key: string;
  version: number;
  payload: string;
  flag?: boolean;
  note?: string;
};
type Counter = { _id: string; scope: string; window: string; n: number };

const adapters = storeAdapters("store", "test.sqlite");

for (const [name, open] of adapters) {
  describe(`store contract: ${name}`, () => {
    let store: Store;
    let items: Collection<Item>;
    let counters: Collection<Counter>;
    let n = 0;
    const id = () => `it_${++n}_${crypto.randomUUID().slice(0, 6)}`;
    const item = (over: Partial<Item> = {}): Item => ({
      _id: id(),
      owner: "o1",
      key: crypto.randomUUID(),
      version: 1,
      payload: "{}",
      ...over,
    });

    beforeAll(async () => {
      store = await open();
      items = await store.collection<Item>("items", [
        { name: "key", fields: ["key"], unique: true },
        { name: "owner", fields: ["owner", "version"] },
      ]);
      counters = await store.collection<Counter>("counters");
    });
    afterAll(() => store.close());

    test("insert then get returns the same document; a missing id is null", async () => {
      const doc = item({ payload: JSON.stringify({ "a.b": [[1]], $x: "é" }), flag: true });
      await items.insert(doc);
      expect(await items.get(doc._id)).toEqual(doc);
      expect(await items.get("nope")).toBeNull();
    });

    test("an _id prefix matches exactly the ids that begin with it, in find, count, update and delete", async () => {
      const base = id();
      const inside = [`${base}:`, `${base}:1`, `${base}:10`, `${base}:2:x`, `${base}:é~`];
      const outside = [base, `${base};`, `${base}0:1`, `${base}:`.toUpperCase()];
      for (const _id of [...inside, ...outside]) await items.insert(item({ _id }));
      const prefix = { _id: { startsWith: `${base}:` } };
      const ids = async () =>
        (await items.find({ owner: "o1", ...prefix }, { sort: { field: "_id", direction: 1 } })).map((d) => d._id);
      expect(await ids()).toEqual([...inside].sort());
      expect(await items.count(prefix)).toBe(inside.length);
      expect(await items.updateMany(prefix, { note: "in" })).toBe(inside.length);
      expect(await items.findOne({ ...prefix, note: null })).toBeNull();
      expect(await items.delete(prefix)).toBe(inside.length);
      expect(await ids()).toEqual([]);
      for (const _id of outside) expect(await items.get(_id)).toMatchObject({ _id });
      expect(items.find({ _id: { startsWith: `${base}é` } })).rejects.toThrow("must end in an ASCII character");
    });

    test("an index marked dropped is removed where it was made, and is never made", async () => {
      const name = `dropped_${n++}`;
      const before = await store.collection<Item>(name, [{ name: "key", fields: ["key"], unique: true }]);
      await before.insert(item({ key: "k" }));
      expect(before.insert(item({ key: "k" }))).rejects.toBeInstanceOf(DuplicateKeyError);
      const after = await store.collection<Item>(name, [{ name: "key", fields: ["key"], unique: true, dropped: true }]);
      await after.insert(item({ key: "k" }));
      expect(await after.count({ key: "k" })).toBe(2);
      const fresh = await store.collection<Item>(`${name}_new`, [{ name: "key", fields: ["key"], dropped: true }]);
      await fresh.insert(item({ key: "k" }));
      await fresh.insert(item({ key: "k" }));
      expect(await fresh.count({ key: "k" })).toBe(2);
    });

    test("a taken _id or unique field is a DuplicateKeyError and writes nothing", async () => {
      const doc = item();
      await items.insert(doc);
      expect(items.insert({ ...doc, key: "other" })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(items.insert(item({ key: doc.key, payload: "second" }))).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await items.count({ key: doc.key })).toBe(1);
      expect(await items.count({ key: "other" })).toBe(0);
    });

    test("find filters by equality, sorts, limits; null matches a missing field", async () => {
      const owner = `owner_${id()}`;
      for (const v of [3, 1, 2]) await items.insert(item({ owner, version: v, ...(v === 2 ? { note: "x" } : {}) }));
      expect((await items.find({ owner }, { sort: { field: "version", direction: 1 } })).map((d) => d.version)).toEqual(
        [1, 2, 3],
      );
      expect(
        (await items.find({ owner }, { sort: { field: "version", direction: -1 }, limit: 2 })).map((d) => d.version),
      ).toEqual([3, 2]);
      expect((await items.find({ owner, note: null })).map((d) => d.version).sort()).toEqual([1, 3]);
      expect((await items.findOne({ owner, version: 2 }))?.note).toBe("x");
      expect(await items.count({ owner })).toBe(3);
    });

    test("listings are complete past 1,000 rows, page without overlap, and updateMany reaches every match", async () => {
      const owner = `many_${id()}`;
      const total = 1_010;
      for (let v = 0; v < total; v += 50)
        await Promise.all(
          Array.from({ length: Math.min(50, total - v) }, (_, i) =>
            items.insert(item({ owner, version: (v + i) % 7 })),
          ),
        );
      expect((await items.find({ owner })).length).toBe(total);
      expect(await items.count({ owner })).toBe(total);
      const sort = { field: "version", direction: 1 } as const;
      const seen = new Set<string>();
      for (let skip = 0; skip < total; skip += 400)
        for (const d of await items.find({ owner }, { sort, skip, limit: 400 })) seen.add(d._id);
      expect(seen.size).toBe(total);
      expect((await items.findOne({ owner }, { field: "version", direction: -1 }))?.version).toBe(6);
      expect(await items.updateMany({ owner }, { note: "all" })).toBe(total);
      expect(await items.count({ owner, note: "all" })).toBe(total);
    });

    test("update applies only when the filter matches, and returns the new document", async () => {
      const doc = item();
      await items.insert(doc);
      const updated = await items.update({ _id: doc._id, version: 1 }, { version: 2, payload: "new" });
      expect(updated).toEqual({ ...doc, version: 2, payload: "new" });
      expect(await items.update({ _id: doc._id, version: 1 }, { version: 3, payload: "stale" })).toBeNull();
      expect(await items.get(doc._id)).toEqual({ ...doc, version: 2, payload: "new" });
    });

    test("an update by id matches its other fields as find does: null for a missing field, booleans, unindexed fields", async () => {
      const doc = item({ flag: false });
      await items.insert(doc);
      const mismatches: Filter<Item>[] = [
        { _id: doc._id, flag: true },
        { _id: doc._id, note: "x" },
        { _id: doc._id, flag: null },
        { _id: doc._id, version: 2 },
        { _id: doc._id, owner: "o2" },
      ];
      for (const filter of mismatches) {
        expect({ filter, matched: (await items.find(filter)).length }).toEqual({ filter, matched: 0 });
        expect({ filter, updated: await items.update(filter, { payload: "no" }) }).toEqual({ filter, updated: null });
      }
      expect(await items.get(doc._id)).toEqual(doc);
      const updated = await items.update(
        { _id: doc._id, flag: false, note: null, version: 1, owner: "o1" },
        { note: "y" },
      );
      expect(updated).toEqual({ ...doc, note: "y" });
      expect(await items.get(doc._id)).toEqual({ ...doc, note: "y" });
    });

    test("an update that takes a unique value in use is a DuplicateKeyError and changes nothing", async () => {
      const a = item();
      const b = item();
      await items.insert(a);
      await items.insert(b);
      expect(items.update({ _id: b._id }, { key: a.key })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect((await items.get(b._id))?.key).toBe(b.key);
      // Freeing a unique value lets another document take it.
      await items.update({ _id: a._id }, { key: `retired:${a._id}` });
      expect(await items.update({ _id: b._id }, { key: a.key })).not.toBeNull();
    });

    test("of 50 concurrent conditional updates from one version, exactly one wins (5 rounds)", async () => {
      for (let round = 0; round < 5; round++) {
        const doc = item();
        await items.insert(doc);
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            items.update({ _id: doc._id, version: 1 }, { version: 2, payload: `writer-${i}` }),
          ),
        );
        const winners = results.filter((r) => r !== null);
        expect(winners).toHaveLength(1);
        expect(await items.get(doc._id)).toEqual(winners[0]!);
      }
    });

    test("updates by _id from versions read while others write: one winner per version, a stale one never applies", async () => {
      const doc = item();
      await items.insert(doc);
      // Each writer reads, then writes conditionally on what it read: the version moves on under most of them.
      const won: number[] = [];
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          for (let attempt = 0; attempt < 3; attempt++) {
            const read = (await items.get(doc._id))!;
            const updated = await items.update(
              { _id: doc._id, version: read.version },
              { version: read.version + 1, payload: `writer-${i}` },
            );
            if (updated) won.push(read.version);
          }
        }),
      );
      const final = (await items.get(doc._id))!;
      expect(won.toSorted((a, b) => a - b)).toEqual(Array.from({ length: final.version - 1 }, (_, v) => v + 1));
      expect(
        await items.update({ _id: doc._id, version: final.version - 1 }, { version: 0, payload: "stale" }),
      ).toBeNull();
      expect(await items.get(doc._id)).toEqual(final);
    });

    test("increment creates a missing document from init, then adds to the field and keeps the rest", async () => {
      const counterId = id();
      expect(await counters.increment(counterId, "n", 3, { scope: "s1", window: "2030-01" })).toEqual({
        _id: counterId,
        scope: "s1",
        window: "2030-01",
        n: 3,
      });
      expect(await counters.increment(counterId, "n", 4, { scope: "ignored", window: "ignored" })).toEqual({
        _id: counterId,
        scope: "s1",
        window: "2030-01",
        n: 7,
      });
      expect(await counters.increment(counterId, "n", 0, { scope: "ignored", window: "ignored" })).toEqual({
        _id: counterId,
        scope: "s1",
        window: "2030-01",
        n: 7,
      });
      expect(await counters.get(counterId)).toEqual({ _id: counterId, scope: "s1", window: "2030-01", n: 7 });
      const zero = id();
      expect(await counters.increment(zero, "n", 0, { scope: "s2", window: "w" })).toEqual({
        _id: zero,
        scope: "s2",
        window: "w",
        n: 0,
      });
    });

    test("of 50 concurrent increments from 0, every one counts and each sees its own total (4 rounds)", async () => {
      for (let round = 0; round < 4; round++) {
        const counterId = id();
        // Even rounds race to create the document; odd rounds add to one that exists.
        if (round % 2 === 1) await counters.insert({ _id: counterId, scope: "s", window: "w", n: 0 });
        const results = await Promise.all(
          Array.from({ length: 50 }, () => counters.increment(counterId, "n", 1, { scope: "s", window: "w" })),
        );
        expect(results.map((r) => r.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
        expect(await counters.get(counterId)).toEqual({ _id: counterId, scope: "s", window: "w", n: 50 });
      }
    });

    test("updateMany and delete report how many documents they touched", async () => {
      const owner = `owner_${id()}`;
      for (let i = 0; i < 3; i++) await items.insert(item({ owner }));
      expect(await items.updateMany({ owner }, { flag: false })).toBe(3);
      expect((await items.find({ owner, flag: false })).length).toBe(3);
      expect(await items.delete({ owner })).toBe(3);
      expect(await items.count({ owner })).toBe(0);
    });

    test("an update with followers writes them when it matches, and none when it does not", async () => {
      const doc = item();
      await items.insert(doc);
      const old = item({ owner: doc._id });
      await items.insert(old);
      const snap = item({ owner: doc._id, payload: "snapshot" });
      const then = [
        { insert: snap, into: items },
        { delete: { _id: old._id }, from: items },
      ];
      expect(await items.update({ _id: doc._id, version: 9 }, { version: 10 }, then)).toBeNull();
      expect([await items.get(snap._id), (await items.get(old._id))?._id]).toEqual([null, old._id]);
      expect((await items.update({ _id: doc._id, version: 1 }, { version: 2 }, then))?.version).toBe(2);
      expect([(await items.get(snap._id))?.payload, await items.get(old._id)]).toEqual(["snapshot", null]);
    });

    test("increment followers count with their write; one under a delete counts only when the delete removed something", async () => {
      const doc = item();
      await items.insert(doc);
      const gone = item({ owner: doc._id });
      await items.insert(gone);
      const counterId = id();
      await counters.insert({ _id: counterId, scope: "s", window: "w", n: 100 });
      const count = (n: number) => ({
        increment: counterId,
        by: { n },
        init: { scope: "s", window: "w" },
        in: counters,
      });
      const then = [count(5), { delete: { _id: gone._id }, from: items, ifDeleted: count(-30) }];
      expect((await items.update({ _id: doc._id, version: 1 }, { version: 2 }, then))?.version).toBe(2);
      expect((await counters.get(counterId))?.n).toBe(75);
      // The same delete again removes nothing: its count stays out.
      expect((await items.update({ _id: doc._id, version: 2 }, { version: 3 }, then))?.version).toBe(3);
      expect((await counters.get(counterId))?.n).toBe(80);
      // No match, no followers.
      expect(await items.update({ _id: doc._id, version: 9 }, { version: 10 }, then)).toBeNull();
      expect((await counters.get(counterId))?.n).toBe(80);
      // One count either way: the delete's, or the other one when it removed nothing.
      const other = item({ owner: doc._id });
      await items.insert(other);
      const either = [{ delete: { _id: other._id }, from: items, ifDeleted: count(-7), ifNoneDeleted: [count(1000)] }];
      expect((await items.update({ _id: doc._id, version: 3 }, { version: 4 }, either))?.version).toBe(4);
      expect([(await counters.get(counterId))?.n, await items.get(other._id)]).toEqual([73, null]);
      expect((await items.update({ _id: doc._id, version: 4 }, { version: 5 }, either))?.version).toBe(5);
      expect((await counters.get(counterId))?.n).toBe(1073);
    });

    test(
      name === "sqlite"
        ? "a follower that fails undoes the first write: all or nothing"
        : "a follower that fails leaves the first write, and says so",
      async () => {
        const doc = item();
        const taken = item();
        await items.insert(doc);
        await items.insert(taken);
        const clash = [{ insert: item({ key: taken.key }), into: items }];
        const failed = await items.update({ _id: doc._id, version: 1 }, { version: 2 }, clash).then(
          () => undefined,
          (err) => err,
        );
        if (name === "sqlite") {
          expect(failed).toBeInstanceOf(DuplicateKeyError);
          expect((await items.get(doc._id))?.version).toBe(1);
        } else {
          expect(failed).toBeInstanceOf(FollowerFailedError);
          expect((failed as FollowerFailedError).updated).toMatchObject({ _id: doc._id, version: 2 });
          expect((await items.get(doc._id))?.version).toBe(2);
        }
        expect(await items.count({ key: taken.key })).toBe(1);
      },
    );

    test("writes under a budget (an increment with atMost): of 12 concurrent ones with room for 5, exactly 5 are written", async () => {
      const counterId = id();
      await counters.insert({ _id: counterId, scope: "s", window: "w", n: 100 });
      const budget = (by: number) => ({
        increment: counterId,
        by: { n: by },
        init: { scope: "s", window: "w" },
        in: counters,
        atMost: { n: 150 },
      });
      const docs = Array.from({ length: 12 }, () => item({ owner: counterId }));
      for (const doc of docs) await items.insert(doc);
      // Updates and inserts alike, each growing the counter by 10: 50 of room takes 5 of them.
      const outcomes = await Promise.allSettled([
        ...docs.slice(0, 6).map((doc) => items.update({ _id: doc._id, version: 1 }, { version: 2 }, [budget(10)])),
        ...docs.slice(6).map(() => items.insert(item({ owner: `${counterId}:new` }), [budget(10)])),
      ]);
      const refused = outcomes.filter((o) => o.status === "rejected").map((o) => (o as PromiseRejectedResult).reason);
      expect(refused).toHaveLength(7);
      for (const reason of refused) expect(reason).toBeInstanceOf(BudgetExceededError);
      expect((await counters.get(counterId))?.n).toBe(150);
      expect(
        (await items.count({ owner: counterId, version: 2 })) + (await items.count({ owner: `${counterId}:new` })),
      ).toBe(5);
      // A write that frees room always passes; one that loses its filter counts nothing.
      expect((await items.update({ _id: docs[0]!._id }, { note: "x" }, [budget(-30)]))?.note).toBe("x");
      expect(await items.update({ _id: docs[0]!._id, version: 99 }, { note: "y" }, [budget(10)])).toBeNull();
      expect((await counters.get(counterId))?.n).toBe(120);
      const over = await items.update({ _id: docs[1]!._id }, { note: "z" }, [budget(31)]).catch((err) => err);
      expect(over).toBeInstanceOf(BudgetExceededError);
      expect((over as BudgetExceededError).counter).toMatchObject({ n: 120 });
      expect((await items.get(docs[1]!._id))?.note).toBeUndefined();
    });

    test("inserts under a quota: of 12 concurrent ones with room for 8, exactly 8 are written; the rest write nothing", async () => {
      const counterId = id();
      const quota = { increment: counterId, field: "n", atMost: 8, init: { scope: "s", window: "w" }, in: counters };
      const docs = Array.from({ length: 12 }, () => item({ owner: counterId }));
      const outcomes = await Promise.allSettled(docs.map((doc) => items.insert(doc, [], quota)));
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(8);
      const refused = outcomes.filter((o) => o.status === "rejected").map((o) => (o as PromiseRejectedResult).reason);
      expect(refused).toHaveLength(4);
      for (const reason of refused) expect(reason).toBeInstanceOf(QuotaExceededError);
      expect(await items.count({ owner: counterId })).toBe(8);
      // A full window stays full: one more is refused too.
      expect(await items.insert(item({ owner: counterId }), [], quota).catch((err) => err)).toBeInstanceOf(
        QuotaExceededError,
      );
      expect(await items.count({ owner: counterId })).toBe(8);
      expect((await counters.get(counterId))?.n).toBeGreaterThanOrEqual(8);
    });

    const failedUnderQuota =
      name === "sqlite"
        ? "an insert under a quota that fails (a duplicate) is not counted: both are one commit"
        : "an insert under a quota that fails (a duplicate) stays counted: the count went first";
    test(failedUnderQuota, async () => {
      const counterId = id();
      const quota = { increment: counterId, field: "n", atMost: 1, init: { scope: "s", window: "w" }, in: counters };
      const taken = item();
      await items.insert(taken);
      expect(await items.insert(item({ key: taken.key }), [], quota).catch((err) => err)).toBeInstanceOf(
        DuplicateKeyError,
      );
      if (name === "sqlite") {
        expect(await counters.get(counterId)).toBeNull();
        const fresh = item();
        await items.insert(fresh, [], quota);
        expect(await items.get(fresh._id)).toEqual(fresh);
      } else {
        expect((await counters.get(counterId))?.n).toBe(1);
      }
    });

    test("writes issued together are judged one by one: a loser or a duplicate fails alone", async () => {
      const doc = item();
      const taken = item();
      await items.insert(doc);
      await items.insert(taken);
      const fresh = item();
      const [won, lost, duplicate, inserted, counted] = await Promise.allSettled([
        items.update({ _id: doc._id, version: 1 }, { version: 2, note: "first" }),
        items.update({ _id: doc._id, version: 1 }, { version: 2, note: "second" }),
        items.insert(item({ key: taken.key })),
        items.insert(fresh),
        counters.increment(`c_${id()}`, "n", 1, { scope: "s", window: "w" }),
      ]);
      // Exactly one of the two updates from version 1 applies (which one is the store's choice).
      const outcomes = [won, lost].map((r) =>
        r.status === "fulfilled" ? ((r.value as Item | null)?.note ?? null) : "rejected",
      );
      expect(outcomes.filter((o) => o === null)).toHaveLength(1);
      const winner = outcomes.find((o) => o !== null);
      expect(duplicate.status === "rejected" && duplicate.reason).toBeInstanceOf(DuplicateKeyError);
      expect(inserted.status).toBe("fulfilled");
      expect(counted).toMatchObject({ status: "fulfilled", value: { n: 1 } });
      expect(await items.get(fresh._id)).toEqual(fresh);
      expect((await items.get(doc._id))?.note).toBe(winner!);
    });
  });
}

test("a MongoDB store whose server is unreachable reports StoreUnavailableError", async () => {
  const error = await createMongoStore(`mongodb://127.0.0.1:${freePort()}/?serverSelectionTimeoutMS=300`, "x").catch(
    (e) => e,
  );
  expect(error).toBeInstanceOf(StoreUnavailableError);
});

/**
 * A TCP proxy in front of the store that can play a restart: `restart(ms)` drops every connection,
 * then for `ms` accepts new ones without answering (a server still starting up), then forwards again.
 */
async function restartingProxy(upstreamPort: number) {
  let answering = true;
  const pairs = new Set<{ client: Bun.Socket<unknown>; server?: Bun.Socket<unknown> }>();
  const proxy = Bun.listen<{
    pair: { client: Bun.Socket<unknown>; server?: Bun.Socket<unknown> };
    early: Uint8Array[];
  }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        const pair: { client: Bun.Socket<unknown>; server?: Bun.Socket<unknown> } = { client };
        client.data = { pair, early: [] };
        pairs.add(pair);
        if (!answering) return;
        void Bun.connect({
          hostname: "127.0.0.1",
          port: upstreamPort,
          socket: {
            open(server) {
              pair.server = server;
              for (const chunk of client.data.early) server.write(chunk);
            },
            data: (_server, chunk) => void client.write(chunk),
            close: () => void client.end(),
          },
        }).catch(() => void client.end());
      },
      data(client, chunk) {
        const { pair, early } = client.data;
        if (pair.server) pair.server.write(chunk);
        else early.push(new Uint8Array(chunk));
      },
      close(client) {
        client.data.pair.server?.end();
        pairs.delete(client.data.pair);
      },
    },
  });
  return {
    port: proxy.port,
    async restart(silentMs: number) {
      answering = false;
      for (const { client, server } of pairs) {
        client.end();
        server?.end();
      }
      pairs.clear();
      await Bun.sleep(silentMs);
      answering = true;
    },
    stop: () => proxy.stop(true),
  };
}

test("a MongoDB store is back soon after its server restarts, even when a connection hung in the handshake", async () => {
  const upstream = new URL((await mongo()).url);
  const proxy = await restartingProxy(Number(upstream.port));
  const store = await createMongoStore(`mongodb://127.0.0.1:${proxy.port}/`, uniqueDb("restart"));
  try {
    const items = await store.collection<{ _id: string; n: number }>("items");
    await items.insert({ _id: "a", n: 1 });
    // Requests keep coming while the server is down, so the driver reconnects into the "start-up",
    // whose connections are accepted and never answered.
    let down = true;
    const traffic = (async () => {
      while (down) await items.get("a").catch(() => Bun.sleep(20));
    })();
    await proxy.restart(1_500);
    down = false;
    await traffic;
    const back = Date.now();
    let found: { _id: string; n: number } | null = null;
    while (!found && Date.now() - back < 10_000) found = await items.get("a").catch(() => null);
    expect(found).toEqual({ _id: "a", n: 1 });
    // The driver's monitor gave up on the hung handshake and reconnected: 30 s by default.
    expect(Date.now() - back).toBeLessThan(10_000);
  } finally {
    await store.close();
    proxy.stop();
  }
}, 40_000);
