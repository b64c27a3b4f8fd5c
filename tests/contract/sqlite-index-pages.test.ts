import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type Collection, DuplicateKeyError, type Index, type Store } from "../../shared/store/port.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { tempDir } from "../helpers/infra.ts";

// An account-like document: several indexed fields, and counters that move on every write.
type Account = {
  _id: string;
  envId: string;
  playerRef?: string;
  activeDay?: string;
  createdDay?: string;
  cleanupPending?: boolean;
  ref: string;
  storedBytes?: number;
  data: string;
  version: number;
};
const indexes: Index[] = [
  { name: "cleanup", fields: ["cleanupPending"] },
  { name: "env_player", fields: ["envId", "playerRef"] },
  { name: "env_active_day", fields: ["envId", "activeDay"] },
  { name: "env_created_day", fields: ["envId", "createdDay"] },
  { name: "env_stored_bytes", fields: ["envId", "storedBytes"] },
  { name: "player_ref", fields: ["playerRef"] },
  { name: "ref", fields: ["ref"], unique: true },
];
const account = (n: number): Account => ({
  _id: `a${n}`,
  envId: "e1",
  playerRef: `p${n}`,
  activeDay: "2026-01-01",
  createdDay: "2026-01-01",
  ref: `r${n}`,
  storedBytes: 10 * n,
  data: "x".repeat(50),
  version: 1,
});

/** WAL frames (pages) written since the last call: checkpointed away through a second connection. */
function walPages(file: string): () => number {
  const other = new Database(file);
  const written = () => other.query<{ log: number }, []>("PRAGMA wal_checkpoint(PASSIVE)").get()!.log;
  const restart = () => other.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  restart();
  return () => {
    const pages = written();
    restart();
    return pages;
  };
}

describe("SQLite store: what a write costs its indexes", () => {
  let file: string;
  let store: Store;
  let accounts: Collection<Account>;

  beforeAll(async () => {
    file = join(tempDir("index-pages"), "accounts.sqlite");
    store = createSqliteStore(file);
    accounts = await store.collection<Account>("accounts", indexes);
    for (let n = 1; n <= 5; n++) await accounts.insert(account(n));
  });
  afterAll(() => store.close());

  test("an update that changes no indexed field writes the row's page alone, no index's", async () => {
    const pages = walPages(file);
    await accounts.update({ _id: "a3", version: 1 }, { data: "y".repeat(50), version: 2 });
    // The indexes are on json_extract(doc, ...): SQLite writes none whose value the update left alone,
    // so an account's save costs no index page but its byte count's (issue 30).
    expect(pages()).toBe(1);
    await accounts.update({ _id: "a3" }, { activeDay: "2026-01-02" });
    expect(pages()).toBe(2);
  });

  test("finds, sorts and counts see every write: updates, increments and a unique field", async () => {
    await accounts.update({ _id: "a1" }, { playerRef: "moved", cleanupPending: true });
    expect((await accounts.find({ envId: "e1", playerRef: "moved" })).map((a) => a._id)).toEqual(["a1"]);
    expect(await accounts.count({ playerRef: "p1" })).toBe(0);
    expect((await accounts.find({ cleanupPending: true })).map((a) => a._id)).toEqual(["a1"]);
    await accounts.increment("a2", "storedBytes", 1000, account(2));
    await accounts.update({ _id: "a5" }, { version: 9 }, [
      { increment: "a4", by: { storedBytes: 500 }, init: {}, in: accounts as unknown as Collection<never> },
    ]);
    const largest = await accounts.find({ envId: "e1" }, { sort: { field: "storedBytes", direction: -1 }, limit: 3 });
    expect(largest.map((a) => [a._id, a.storedBytes])).toEqual([
      ["a2", 1020],
      ["a4", 540],
      ["a5", 50],
    ]);
    expect(accounts.update({ _id: "a5" }, { ref: "r4" })).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(accounts.insert({ ...account(6), ref: "r4" })).rejects.toBeInstanceOf(DuplicateKeyError);
    expect((await accounts.get("a5"))?.ref).toBe("r5");
    expect(await accounts.get("a6")).toBeNull();
  });
});

// A restore-point-like document: pruned by the day it expires, listed oldest day first (MongoDB breaks
// that sort's ties by `_id`, so the index names it last).
type Point = { _id: string; expiresDay: string; payload: string };
const byDay: Index[] = [{ name: "expires_day", fields: ["expiresDay", "_id"] }];
const point = (id: string): Point => ({ _id: id, expiresDay: "2026-02-01", payload: "p".repeat(40) });
const randomIds = (n: number) => Array.from({ length: n }, () => crypto.randomUUID());

describe("SQLite store: an index of days and ids", () => {
  test("a day's new documents are written at its index's end, not at random places among its ids", async () => {
    const dir = tempDir("index-days");
    // The same writes to a collection with the index and to one without it: what the index costs.
    const cost = async (indexes: Index[]) => {
      const file = join(dir, `${indexes.length}.sqlite`);
      const store = createSqliteStore(file);
      const points = await store.collection<Point>("points", indexes);
      await Promise.all(randomIds(4000).map((id) => points.insert(point(id))));
      const pages = walPages(file);
      await Promise.all(randomIds(40).map((id) => points.insert(point(id))));
      const written = pages();
      await store.close();
      return written;
    };
    const without = await cost([]);
    // In (day, _id) order the 40 entries landed on about as many leaf pages (27 to 38 more than without
    // the index, measured); in (day, rowid) order on its last few (2 to 9 more: the other ids are random too).
    expect(await cost(byDay)).toBeLessThanOrEqual(without + 18);
  });

  test("a store whose index still ends in _id gets it made again, and sorts by day read it in order", async () => {
    const file = join(tempDir("index-days-upgrade"), "points.sqlite");
    const old = new Database(file);
    old.exec(`CREATE TABLE "points" (_id TEXT PRIMARY KEY, doc TEXT NOT NULL, "ix_expiresDay")`);
    old.exec(`CREATE INDEX "points_expires_day" ON "points" ("ix_expiresDay", _id)`);
    old.close();
    const store = createSqliteStore(file);
    const points = await store.collection<Point>("points", byDay);
    for (const [id, day] of [
      ["b", "2026-03-02"],
      ["c", "2026-03-01"],
      ["a", "2026-03-02"],
    ] as const)
      await points.insert({ ...point(id), expiresDay: day });
    const sort = { field: "expiresDay", direction: 1 } as const;
    // Ties in the order they were written, and pages that neither overlap nor skip.
    const pages = [0, 1, 2].map((skip) => points.find({}, { sort, skip, limit: 1 }));
    expect((await Promise.all(pages)).flat().map((p) => p._id)).toEqual(["c", "b", "a"]);
    await store.close();
    const db = new Database(file, { readonly: true });
    const made = db.query<{ sql: string }, []>(`SELECT sql FROM sqlite_master WHERE name = 'points_expires_day'`).get();
    const plan = db.query<{ detail: string }, []>(
      `EXPLAIN QUERY PLAN SELECT doc FROM "points" ORDER BY "ix_expiresDay" ASC, rowid ASC LIMIT 1`,
    );
    expect(made?.sql).toBe(`CREATE INDEX "points_expires_day" ON "points" ("ix_expiresDay")`);
    expect(plan.all().map((r) => r.detail)).toEqual(["SCAN points USING INDEX points_expires_day"]);
    db.close();
  });
});
