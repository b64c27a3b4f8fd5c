import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { isAppError } from "../../shared/contract/errors.ts";
import { createMongoStore } from "../../shared/store/mongo.ts";
import type { Collection, Store } from "../../shared/store/port.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { inRounds, lostRound, updateInRounds, updateVersioned } from "../../shared/store/versioned.ts";
import { mongo, tempDir, uniqueDb } from "../helpers/infra.ts";

type Tally = { _id: string; version: number; items: string };
type Flagged = { _id: string; state: string; by?: string };

const adapters: [string, () => Promise<Store>][] = [
  ["sqlite", async () => createSqliteStore(join(tempDir("versioned"), "test.sqlite"))],
  ["mongo", async () => createMongoStore((await mongo()).url, uniqueDb("versioned"))],
];

const unavailable = (err: unknown) => isAppError(err) && err.code === "service_unavailable";

for (const [name, open] of adapters) {
  describe(`optimistic concurrency: ${name}`, () => {
    let store: Store;
    let tallies: Collection<Tally>;
    let flags: Collection<Flagged>;
    const id = () => `t_${crypto.randomUUID().slice(0, 8)}`;
    // Appends `item` to the tally's list: a lost update would drop some writer's item.
    const append = (_id: string, item: string, rounds: number) =>
      updateVersioned(
        tallies,
        _id,
        (current) => ({ next: { items: JSON.stringify([...JSON.parse(current?.items ?? "[]"), item]) } }),
        { rounds },
      );

    beforeAll(async () => {
      store = await open();
      tallies = await store.collection<Tally>("tallies");
      flags = await store.collection<Flagged>("flags");
    });
    afterAll(() => store.close());

    test("a missing document is inserted at version 1, then each write is the next version", async () => {
      const _id = id();
      expect(await append(_id, "a", 3)).toEqual({ written: { _id, version: 1, items: '["a"]' } });
      expect(await append(_id, "b", 3)).toEqual({ written: { _id, version: 2, items: '["a","b"]' } });
      expect(await tallies.get(_id)).toEqual({ _id, version: 2, items: '["a","b"]' });
    });

    test("concurrent writers, first insert included: no update is lost and every one gets its own version", async () => {
      const _id = id();
      const writers = Array.from({ length: 8 }, (_, n) => `w${n}`);
      // Each lost round means another writer landed, so 8 writers all land within 8 rounds.
      const outcomes = await Promise.all(writers.map((w) => append(_id, w, writers.length)));
      const versions = outcomes.map((o) => ("written" in o ? o.written.version : 0)).sort((a, b) => a - b);
      expect(versions).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      const stored = await tallies.get(_id);
      expect(stored?.version).toBe(8);
      expect(JSON.parse(stored!.items).sort()).toEqual(writers);
    });

    test("followers are written with the write, numbered by the version it made", async () => {
      const _id = id();
      const keep = (items: string) => () => ({
        next: { items },
        followers: (version: number) => [{ insert: { _id: `${_id}#${version}`, version, items }, into: tallies }],
      });
      await updateVersioned(tallies, _id, keep("[1]"), { rounds: 2 });
      await updateVersioned(tallies, _id, keep("[2]"), { rounds: 2 });
      expect(await tallies.get(`${_id}#1`)).toEqual({ _id: `${_id}#1`, version: 1, items: "[1]" });
      expect(await tallies.get(`${_id}#2`)).toEqual({ _id: `${_id}#2`, version: 2, items: "[2]" });
    });

    test("a stop answers without writing", async () => {
      const _id = id();
      await append(_id, "a", 1);
      expect(await updateVersioned(tallies, _id, () => ({ stop: "too old" }), { rounds: 3 })).toEqual({
        stopped: "too old",
      });
      expect((await tallies.get(_id))?.version).toBe(1);
    });

    test("rounds are bounded: a writer that loses every round gets 503 after exactly `rounds` reads", async () => {
      const _id = id();
      await append(_id, "a", 1);
      let reads = 0;
      // Another writer lands between every read and its write.
      const contended = updateVersioned(
        tallies,
        _id,
        async (current) => {
          reads++;
          await append(_id, `other${reads}`, 1);
          return { next: { items: current!.items } };
        },
        { rounds: 4 },
      );
      expect(
        await contended.then(
          () => "written",
          (err) => (unavailable(err) ? "503" : String(err)),
        ),
      ).toBe("503");
      expect(reads).toBe(4);
      expect(JSON.parse((await tallies.get(_id))!.items)).toEqual(["a", "other1", "other2", "other3", "other4"]);
    });

    test("the last lost round answers what the caller names instead of 503", async () => {
      let rounds = 0;
      expect(
        await inRounds({ rounds: 3, exhausted: () => "given up" }, async () => {
          rounds++;
          return lostRound;
        }),
      ).toBe("given up");
      expect(rounds).toBe(3);
    });

    test("a change conditional on other fields than a version: the read value is the condition", async () => {
      const _id = id();
      await flags.insert({ _id, state: "open" });
      const close = (by: string) =>
        updateInRounds<Flagged, string>(
          flags,
          () => flags.get(_id),
          (current) =>
            current?.state === "closed"
              ? { stop: `already closed by ${current.by}` }
              : { changes: { state: "closed", by }, where: { state: "open" } },
          { rounds: 2 },
        );
      const outcomes = await Promise.all(["x", "y", "z"].map(close));
      const winner = (await flags.get(_id))!.by;
      expect(outcomes.filter((o) => "written" in o)).toHaveLength(1);
      expect(outcomes.filter((o) => "stopped" in o)).toEqual([
        { stopped: `already closed by ${winner}` },
        { stopped: `already closed by ${winner}` },
      ]);
    });
  });
}
