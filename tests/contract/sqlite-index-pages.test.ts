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
