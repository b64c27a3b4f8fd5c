import { join } from "node:path";
import { createMongoStore } from "../../shared/store/mongo.ts";
import type { Store } from "../../shared/store/port.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { mongo, tempDir, uniqueDb } from "./infra.ts";

export type StoreAdapterName = "sqlite" | "mongo";

/**
 * Every store adapter the services run on, each with a function that opens a fresh, empty store: SQLite
 * in a directory of its own (`sqliteFile` in it), and a database of its own on the run's MongoDB-wire
 * server. `label` names both, so a left-over directory or database says which suite made it.
 */
export function storeAdapters(
  label: string,
  sqliteFile = `${label}.sqlite`,
): [StoreAdapterName, () => Promise<Store>][] {
  return [
    ["sqlite", async () => createSqliteStore(join(tempDir(label), sqliteFile))],
    ["mongo", async () => createMongoStore((await mongo()).url, uniqueDb(label))],
  ];
}
