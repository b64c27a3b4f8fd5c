import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { tempDir } from "../helpers/infra.ts";

// The reads of one event-loop turn share one read transaction (shared/store/sqlite-read-turn.ts).
type Item = { _id: string; n: number };
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

async function opened() {
  const file = join(tempDir("read-turn"), "store.sqlite");
  const store = createSqliteStore(file);
  const items = await store.collection<Item>("items", [{ name: "n", fields: ["n"] }]);
  await items.insert({ _id: "a", n: 1 });
  return { file, store, items };
}

/** What another process sees: a checkpoint that must wait for every reader of this file answers busy. */
const checkpointBusy = (file: string) => {
  const other = new Database(file);
  try {
    return (other.query("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number }).busy;
  } finally {
    other.close();
  }
};

test("a write queued after reads of the same turn commits, and the reads after it see it", async () => {
  const { store, items } = await opened();
  expect(await items.get("a")).toEqual({ _id: "a", n: 1 });
  expect(await items.count({ n: 1 })).toBe(1);
  const updated = items.update({ _id: "a" }, { n: 2 });
  const inserted = items.insert({ _id: "b", n: 2 });
  await Promise.all([updated, inserted]);
  expect(await items.find({ n: 2 })).toEqual([
    { _id: "a", n: 2 },
    { _id: "b", n: 2 },
  ]);
  // A collection opened after a read in the same turn: its table and index are made outside the read.
  // A write queued before a turn's first read: its batch begins while that read is still open.
  await nextTurn();
  const queuedFirst = items.insert({ _id: "d", n: 4 });
  expect(await items.get("b")).toEqual({ _id: "b", n: 2 });
  await queuedFirst;
  expect(await items.get("d")).toEqual({ _id: "d", n: 4 });
  const later = await store.collection<Item>("later", [{ name: "n", fields: ["n"] }]);
  await later.insert({ _id: "c", n: 3 });
  expect(await later.find({ n: 3 })).toEqual([{ _id: "c", n: 3 }]);
  await store.close();
});

test("the reads of a turn hold one read transaction, and none is left open after the turn", async () => {
  const { file, store, items } = await opened();
  await nextTurn();
  expect(checkpointBusy(file)).toBe(0);
  await items.insert({ _id: "b", n: 2 }); // in the log again: a reader now reads from it
  await items.get("a");
  await items.findOne({ n: 1 });
  expect(checkpointBusy(file)).toBe(1);
  await nextTurn();
  expect(checkpointBusy(file)).toBe(0);
  await store.close();
});
