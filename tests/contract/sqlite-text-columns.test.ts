import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { tempDir } from "../helpers/infra.ts";

type Item = { _id: string; owner: string; data?: string; n?: number; note?: string };
const data = (n: number) => JSON.stringify({ n, say: 'a "quoted" \\ line\nand é, 🎮, \u0000', list: [n, n + 1] });

/** What the table holds, read apart from the code under test: each row's document and its text column. */
function rows(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    const columns = db
      .query<{ name: string }, []>(`PRAGMA table_info("items")`)
      .all()
      .map((c) => c.name);
    const texts = columns.includes("tx_data") ? ", tx_data" : ", NULL AS tx_data";
    const all = db.query<{ _id: string; doc: string; tx_data: string | null }, []>(
      `SELECT _id, doc${texts} FROM "items" ORDER BY _id`,
    );
    return all.all().map((r) => ({ _id: r._id, doc: JSON.parse(r.doc) as Item, text: r.tx_data }));
  } finally {
    db.close();
  }
}

/**
 * A declared text lives in a column beside its document (shared/store/sqlite-texts.ts): a store that kept
 * it inside the document's JSON has it moved there when the collection is opened with it, every write
 * through any handle writes it there, and every read gives the document back whole, as it was written.
 */
test("a text kept inside documents moves to its column at open, and every read and write keeps it there", async () => {
  const file = join(tempDir("text-columns"), "old.sqlite");
  const before = createSqliteStore(file);
  const old = await before.collection<Item>("items", [{ name: "owner", fields: ["owner"] }]);
  await old.insert({ _id: "a", owner: "o1", data: data(1), n: 1 });
  await old.insert({ _id: "b", owner: "o1", n: 2 }); // no text at all
  await before.close();
  expect(rows(file).map((r) => r.doc.data)).toEqual([data(1), undefined]);

  const store = createSqliteStore(file);
  try {
    const plain = await store.collection<Item>("items"); // opened before the text is declared, as slots are
    const items = await store.collection<Item>("items", [{ name: "owner", fields: ["owner"] }], ["data"]);
    expect(await items.get("a")).toEqual({ _id: "a", owner: "o1", data: data(1), n: 1 });
    expect(await items.get("b")).toEqual({ _id: "b", owner: "o1", n: 2 });
    expect(rows(file).map((r) => [r.doc.data, r.text])).toEqual([
      [undefined, data(1)],
      [undefined, null],
    ]);

    // Every write, through either handle: an insert, an update of the text, one leaving it, an increment.
    await plain.insert({ _id: "c", owner: "o2", data: data(3) });
    await items.update({ _id: "b", n: 2 }, { data: data(2) });
    const noted = await items.update({ _id: "a" }, { note: "text untouched" });
    const counted = await plain.increment("c", "n", 5, { owner: "o2" });
    await items.increment("d", "n", 1, { owner: "o3", data: data(4) }); // seeded: missing before
    expect(noted).toEqual({ _id: "a", owner: "o1", data: data(1), n: 1, note: "text untouched" });
    expect(counted).toEqual({ _id: "c", owner: "o2", data: data(3), n: 5 });
    expect(await items.find({ owner: "o1" }, { sort: { field: "n", direction: 1 } })).toEqual([
      { _id: "a", owner: "o1", data: data(1), n: 1, note: "text untouched" },
      { _id: "b", owner: "o1", data: data(2), n: 2 },
    ]);
    expect(await plain.findOne({ data: data(3) })).toEqual({ _id: "c", owner: "o2", data: data(3), n: 5 });
    expect(await items.count({ data: null })).toBe(0);
    expect(await items.updateMany({ owner: "o1" }, { data: data(9) })).toBe(2);
    expect(await items.delete({ data: data(4) })).toBe(1);
  } finally {
    await store.close();
  }

  // The texts are in their column, none is left in a document, and a second start moves nothing again.
  expect(rows(file)).toEqual([
    { _id: "a", doc: { _id: "a", owner: "o1", n: 1, note: "text untouched" }, text: data(9) },
    { _id: "b", doc: { _id: "b", owner: "o1", n: 2 }, text: data(9) },
    { _id: "c", doc: { _id: "c", owner: "o2", n: 5 }, text: data(3) },
  ]);
  const again = createSqliteStore(file);
  const items = await again.collection<Item>("items", [], ["data"]);
  expect((await items.get("c"))?.data).toBe(data(3));
  await again.close();
});
