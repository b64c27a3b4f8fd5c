import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { DuplicateKeyError } from "../../shared/store/port.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { tempDir } from "../helpers/infra.ts";

type Item = { _id: string; key?: string; n?: number; note?: string };
const indexes = [
  { name: "key", fields: ["key"], unique: true },
  { name: "n_id", fields: ["n", "_id"] },
];

/**
 * Indexed fields live in columns beside the document (shared/store/sqlite.ts): a store from before them,
 * indexed on expressions, is converted when its collection is opened, and every write through any
 * handle of the table keeps the columns right, so lookups, sorts and unique keys hold as before.
 */
test("a store indexed on expressions is converted to columns, and every write keeps them right", async () => {
  const file = join(tempDir("index-columns"), "old.sqlite");
  const old = new Database(file, { create: true, strict: true });
  old.exec(`CREATE TABLE "items" (_id TEXT PRIMARY KEY, doc TEXT NOT NULL)`);
  old.exec(`CREATE UNIQUE INDEX "items_key" ON "items" (json_extract(doc, '$.key'))`);
  old.exec(`CREATE INDEX "items_n_id" ON "items" (json_extract(doc, '$.n'), json_extract(doc, '$._id'))`);
  const insert = old.prepare(`INSERT INTO "items" (_id, doc) VALUES (?, ?)`);
  insert.run("a", JSON.stringify({ _id: "a", key: "k1", n: 1 }));
  insert.run("b", JSON.stringify({ _id: "b", key: "k2", n: 3 }));
  insert.run("c", JSON.stringify({ _id: "c", n: 2 }));
  old.close();

  const store = createSqliteStore(file);
  try {
    const items = await store.collection<Item>("items", indexes);
    const plain = await store.collection<Item>("items"); // a handle opened without its indexes
    const keys = async () => (await items.find({}, { sort: { field: "n", direction: 1 } })).map((x) => x._id);
    expect((await items.findOne({ key: "k1" }))?._id).toBe("a");
    expect(await keys()).toEqual(["a", "c", "b"]);
    expect(await items.count({ key: null })).toBe(1);

    // Every write, through either handle: an insert, an update naming the field, one not naming it, an increment.
    await plain.insert({ _id: "d", key: "k4", n: 0 });
    await plain.update({ _id: "a" }, { key: "k3" });
    await items.update({ _id: "b" }, { note: "untouched key" });
    await items.increment("c", "n", 5, {});
    await plain.increment("e", "n", 4, { key: "k5" }); // seeded: missing before
    expect((await items.findOne({ key: "k1" }))?._id).toBeUndefined();
    expect((await items.findOne({ key: "k3" }))?._id).toBe("a");
    expect((await items.findOne({ key: "k2" }))?.note).toBe("untouched key");
    expect((await items.findOne({ key: "k5" }))?.n).toBe(4);
    expect((await items.find({ n: 7 })).map((x) => x._id)).toEqual(["c"]);
    expect(await keys()).toEqual(["d", "a", "b", "e", "c"]);
    await expect(plain.insert({ _id: "f", key: "k3" })).rejects.toBeInstanceOf(DuplicateKeyError);
    await items.delete({ key: "k4" });
    expect(await items.count({})).toBe(4);
  } finally {
    await store.close();
  }

  // The indexes are on columns now, and a second start converts nothing again.
  const check = new Database(file, { readonly: true });
  const sql = check.query<{ sql: string }, []>(
    `SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'items'`,
  );
  const made = sql.all().map((r) => r.sql);
  check.close();
  expect(made.filter((s) => s?.includes("json_extract"))).toEqual([]);
  expect(made.filter((s) => s?.includes('"ix_key"') || s?.includes('"ix_n"'))).toHaveLength(2);
  const again = createSqliteStore(file);
  const items = await again.collection<Item>("items", indexes);
  expect((await items.findOne({ key: "k3" }))?._id).toBe("a");
  await again.close();
});
