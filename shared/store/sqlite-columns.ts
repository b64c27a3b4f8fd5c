import type { Database, SQLQueryBindings } from "bun:sqlite";
import { checkField, type Index } from "./port.ts";

/**
 * The fields a table's indexes are on, each kept in a column of its own (`ix_<field>`) beside the
 * document: an index on an expression over the document is computed again, for the old row and the
 * new, on every write of the row, also when its key did not change, and a slot's document carries its
 * data as escaped JSON text (issue 30). A write sets only the columns of the fields it names, so an
 * index whose fields it leaves alone is not touched. One set per table, shared by its every handle.
 */
export type Columns = Set<string>;

export const jsonPath = (field: string) => `json_extract(doc, '$.${checkField(field)}')`;
export const column = (field: string) => `"ix_${checkField(field)}"`;
/** Where a field's value is read from in SQL: its column when it has one. */
export const path = (field: string, columns: Columns) => (columns.has(field) ? column(field) : jsonPath(field));
export const bind = (v: unknown): SQLQueryBindings => (typeof v === "boolean" ? (v ? 1 : 0) : (v as SQLQueryBindings));
/** A field's value as its column holds it: what `json_extract` answers for it (JSON text for an object). */
export const columnValue = (v: unknown): SQLQueryBindings =>
  v === undefined || v === null ? null : typeof v === "object" ? JSON.stringify(v) : bind(v);

/** The fields a table has columns for under `prefix` (`ix_`: index columns, `own_`: own columns), in order. */
export const prefixedColumns = (db: Database, table: string, prefix: string): string[] =>
  db
    .query<{ name: string }, []>(`PRAGMA table_info("${table}")`)
    .all()
    .filter((c) => c.name.startsWith(prefix))
    .map((c) => c.name.slice(prefix.length));

/** A store's tables' columns, read from each table once, and its indexes made on them. */
export function indexedColumns(db: Database) {
  const tableColumns = new Map<string, Columns>();
  return {
    columnsOf(table: string): Columns {
      let columns = tableColumns.get(table);
      if (!columns) {
        columns = new Set(prefixedColumns(db, table, "ix_"));
        tableColumns.set(table, columns);
      }
      return columns;
    },

    /**
     * The index, on columns: a field without one gets it, filled from every stored document (`source`:
     * where the table keeps the field's value), and an index of that name made otherwise by an earlier
     * version (on expressions, or with other keys) is made again.
     * A last key `_id` is left out: it orders ties for MongoDB, and SQLite ends every index in the rowid,
     * its own order of ties (sqlite.ts, find). An index of days and ids was thus filled at random places
     * by each day's new documents; ended in the rowid, it is filled at its end (issue 30).
     */
    indexOn(table: string, index: Index, columns: Columns, source: (field: string) => string = jsonPath): void {
      const name = `${table}_${checkField(index.name)}`;
      if (index.dropped) {
        db.exec(`DROP INDEX IF EXISTS "${name}"`);
        return;
      }
      for (const field of index.fields) {
        if (field === "_id" || columns.has(field)) continue;
        db.exec(`ALTER TABLE "${table}" ADD COLUMN ${column(field)}`);
        db.exec(`UPDATE "${table}" SET ${column(field)} = ${source(field)}`);
        columns.add(field);
      }
      const tie = index.fields.length > 1 && index.fields.at(-1) === "_id" && !index.unique;
      const fields = tie ? index.fields.slice(0, -1) : index.fields;
      const keys = fields.map((f) => (f === "_id" ? "_id" : column(f))).join(", ");
      // As SQLite records it in sqlite_master.
      const wanted = `CREATE ${index.unique ? "UNIQUE " : ""}INDEX "${name}" ON "${table}" (${keys})`;
      const made = db.query<{ sql: string }, [string]>("SELECT sql FROM sqlite_master WHERE name = ?").get(name);
      if (made?.sql === wanted) return;
      if (made) db.exec(`DROP INDEX "${name}"`);
      db.exec(wanted);
    },
  };
}
