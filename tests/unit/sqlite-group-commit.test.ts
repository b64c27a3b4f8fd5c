import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { GroupCommit, type NowCollection } from "../../shared/store/sqlite-group-commit.ts";

const items = (db: Database): NowCollection => ({
  insertNow: (doc) => void db.query("INSERT INTO items (_id) VALUES (?)").run(String(doc._id)),
  updateNow: () => [],
  incrementNow: () => ({ _id: "" }),
  incrementAllNow: () => ({ _id: "" }),
  deleteNow: () => 0,
});

/** A writer on an in-memory table of ids, and the collection of it. */
function itemsWriter() {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE items (_id TEXT PRIMARY KEY)");
  return { db, writer: new GroupCommit(db), c: items(db) };
}

test("a write whose error ended the whole transaction fails its batch, every write of it, and nothing is stored", async () => {
  const { db, writer, c } = itemsWriter();
  // As SQLite does after some I/O errors: the transaction is rolled back under the write that failed.
  const ending: NowCollection = {
    ...c,
    insertNow: () => {
      db.exec("ROLLBACK");
      throw new Error("disk I/O error");
    },
  };
  const before = writer.submit({ kind: "insert", c, doc: { _id: "a" } });
  const failing = writer.submit({ kind: "insert", c: ending, doc: { _id: "b" } });
  const after = writer.submit({ kind: "insert", c, doc: { _id: "c" } });
  const outcomes = await Promise.allSettled([before, failing, after]);
  expect(outcomes.map((o) => (o.status === "rejected" ? (o.reason as Error).message : o.status))).toEqual([
    "disk I/O error",
    "disk I/O error",
    "disk I/O error",
  ]);
  expect(db.inTransaction).toBe(false);
  expect(db.query("SELECT count(*) AS n FROM items").get()).toEqual({ n: 0 });
  // The writer goes on: the next batch commits.
  await writer.submit({ kind: "insert", c, doc: { _id: "d" } });
  expect(db.query("SELECT _id FROM items").all()).toEqual([{ _id: "d" }]);
});

test("a write that fails after writing part of itself fails alone: the batch's others commit, once, and it leaves nothing", async () => {
  const { db, writer, c } = itemsWriter();
  // Its first row is written, then it fails: a follower that fails after its first write.
  const halfway: NowCollection = {
    ...c,
    insertNow: (doc) => {
      c.insertNow(doc);
      throw new Error("follower failed");
    },
  };
  const writes = [
    writer.submit({ kind: "insert", c, doc: { _id: "a" } }),
    writer.submit({ kind: "insert", c: halfway, doc: { _id: "b" } }),
    writer.submit({ kind: "insert", c, doc: { _id: "c" } }),
    // A duplicate of a row written earlier in the same batch.
    writer.submit({ kind: "insert", c, doc: { _id: "a" } }),
  ];
  const outcomes = await Promise.allSettled(writes);
  expect(outcomes.map((o) => (o.status === "rejected" ? (o.reason as Error).constructor.name : o.status))).toEqual([
    "fulfilled",
    "Error",
    "fulfilled",
    "DuplicateKeyError",
  ]);
  expect(db.query("SELECT _id FROM items ORDER BY _id").all()).toEqual([{ _id: "a" }, { _id: "c" }]);
  expect(writer.commits).toBe(1);
  expect(db.inTransaction).toBe(false);
});
