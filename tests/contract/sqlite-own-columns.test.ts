import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { tempDir } from "../helpers/infra.ts";

type Item = { _id: string; owner: string; data?: string; n?: number; note?: string };
const data = (n: number) => JSON.stringify({ n, say: 'a "quoted" \\ line\nand é, 🎮, \u0000', list: [n, n + 1] });
const apart = ["data", "n"];

/** What the table holds, read apart from the code under test: each row's document and its own columns. */
function rows(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    const columns = db
      .query<{ name: string }, []>(`PRAGMA table_info("items")`)
      .all()
      .map((c) => c.name);
    const own = (c: string) => (columns.includes(c) ? `, ${c}` : `, NULL AS ${c}`);
    const all = db.query<{ _id: string; doc: string; own_data: string | null; own_n: number | null }, []>(
      `SELECT _id, doc${own("own_data")}${own("own_n")} FROM "items" ORDER BY _id`,
    );
    return all.all().map((r) => ({ _id: r._id, doc: JSON.parse(r.doc) as Item, data: r.own_data, n: r.own_n }));
  } finally {
    db.close();
  }
}

/**
 * Declared fields live in columns of their own beside the document (shared/store/sqlite-own-columns.ts): a
 * store that kept them inside the document's JSON has them moved there when the collection is opened with
 * them, every write through any handle (an increment too) writes them there, and every read gives the
 * document back whole, as it was written.
 */
test("fields kept inside documents move to their own columns at open, and every read and write keeps them there", async () => {
  const file = join(tempDir("own-columns"), "old.sqlite");
  const before = createSqliteStore(file);
  const old = await before.collection<Item>("items", [{ name: "owner", fields: ["owner"] }]);
  await old.insert({ _id: "a", owner: "o1", data: data(1), n: 1 });
  await old.insert({ _id: "b", owner: "o1", n: 2 }); // no text at all
  await before.close();
  expect(rows(file).map((r) => [r.doc.data, r.doc.n])).toEqual([
    [data(1), 1],
    [undefined, 2],
  ]);

  const store = createSqliteStore(file);
  try {
    const plain = await store.collection<Item>("items"); // opened before its fields are declared, as slots are
    // An index on a field moved apart is filled from its column.
    const items = await store.collection<Item>("items", [{ name: "owner_n", fields: ["owner", "n"] }], { apart });
    expect(await items.get("a")).toEqual({ _id: "a", owner: "o1", data: data(1), n: 1 });
    expect(await items.get("b")).toEqual({ _id: "b", owner: "o1", n: 2 });
    expect(rows(file).map((r) => [r.doc.data, r.doc.n, r.data, r.n])).toEqual([
      [undefined, undefined, data(1), 1],
      [undefined, undefined, null, 2],
    ]);
    expect((await items.find({ owner: "o1", n: 2 })).map((x) => x._id)).toEqual(["b"]);

    // Every write, through either handle: an insert, an update of the text, one leaving it, increments.
    await plain.insert({ _id: "c", owner: "o2", data: data(3) });
    await items.update({ _id: "b", n: 2 }, { data: data(2) });
    const noted = await items.update({ _id: "a" }, { note: "text untouched" });
    const counted = await plain.increment("c", "n", 5, { owner: "o2" });
    await items.increment("d", "n", 1, { owner: "o3", data: data(4) }); // seeded: missing before
    expect(noted).toEqual({ _id: "a", owner: "o1", data: data(1), n: 1, note: "text untouched" });
    expect(counted).toEqual({ _id: "c", owner: "o2", data: data(3), n: 5 });
    expect(await items.increment("a", "n", 10, { owner: "o1" })).toEqual({ ...noted!, n: 11 });
    expect(await items.find({ owner: "o1" }, { sort: { field: "n", direction: 1 } })).toEqual([
      { _id: "b", owner: "o1", data: data(2), n: 2 },
      { _id: "a", owner: "o1", data: data(1), n: 11, note: "text untouched" },
    ]);
    expect((await items.find({ owner: "o1", n: 11 })).map((x) => x._id)).toEqual(["a"]);
    expect(await plain.findOne({ data: data(3) })).toEqual({ _id: "c", owner: "o2", data: data(3), n: 5 });
    expect(await items.count({ data: null })).toBe(0);
    expect(await items.updateMany({ owner: "o1" }, { data: data(9) })).toBe(2);
    expect(await items.delete({ data: data(4) })).toBe(1);
  } finally {
    await store.close();
  }

  // The values are in their columns, none is left in a document, and a second start moves nothing again.
  expect(rows(file)).toEqual([
    { _id: "a", doc: { _id: "a", owner: "o1", note: "text untouched" }, data: data(9), n: 11 },
    { _id: "b", doc: { _id: "b", owner: "o1" }, data: data(9), n: 2 },
    { _id: "c", doc: { _id: "c", owner: "o2" }, data: data(3), n: 5 },
  ]);
  // An index made later on a field kept apart is filled from its column.
  const again = createSqliteStore(file);
  const items = await again.collection<Item>("items", [{ name: "by_data", fields: ["data"] }], { apart });
  expect(await items.get("c")).toEqual({ _id: "c", owner: "o2", data: data(3), n: 5 });
  expect((await items.find({ data: data(9) })).map((x) => x._id)).toEqual(["a", "b"]);
  await again.close();
});
