import type { Store } from "./port.ts";

/**
 * A step that brings one service's stored documents from `version - 1` to `version`. Steps run at start,
 * in order, before the service reads anything. On MongoDB every copy of a service may start at once, so a
 * step must be safe to run twice (write only what is still missing, never count up).
 */
export interface Migration {
  version: number;
  name: string;
  up(store: Store): Promise<void>;
}

/** Version 1 is the schema as it stood when versions began: a store written before then gets it as is. */
const baseline: Migration = { version: 1, name: "baseline", up: async () => {} };

/**
 * Version 2: on SQLite, each indexed field kept in a column of its own (sqlite-columns.ts), made as each
 * collection is opened with its indexes. Nothing to do here: the version is what makes an older server
 * refuse the store, since its writes would leave the columns behind (and unique keys no longer unique).
 */
const indexColumns: Migration = { version: 2, name: "SQLite indexes on columns", up: async () => {} };

/**
 * Version 3: on SQLite, a slot's data, accountData, an account's byte counts, a save's state and metadata
 * and every restore point's payload kept in a column of its own (sqlite-own-columns.ts), moved there as each
 * collection is opened. As for version 2, the version is what makes an older server refuse the store: it
 * would read documents without them.
 */
const ownColumnsStep: Migration = { version: 3, name: "SQLite fields in columns of their own", up: async () => {} };

/**
 * Each service's migrations, oldest first, numbered 1, 2, 3... A new one goes at the end of its
 * service's list (and in CHANGELOG.md); the last number is the schema this server writes.
 */
export const migrations: Record<string, readonly Migration[]> = {
  config: [baseline, indexColumns],
  accounts: [baseline, indexColumns, ownColumnsStep],
  transfer: [baseline, indexColumns],
  "auth-bridge": [baseline, indexColumns],
  billing: [baseline, indexColumns],
  saves: [baseline, indexColumns, ownColumnsStep],
};

/** The migrations of `service` (a service without its own list has the baseline alone). */
export const migrationsOf = (service: string): readonly Migration[] => migrations[service] ?? [baseline];

/** The schema version this server writes for `service`. */
export const latestSchemaOf = (service: string): number => migrationsOf(service).at(-1)?.version ?? 0;
