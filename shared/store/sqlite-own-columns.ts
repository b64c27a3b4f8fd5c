import type { Database } from "bun:sqlite";
import { checkField, type Doc } from "./port.ts";
import { prefixedColumns } from "./sqlite-columns.ts";

const key = (field: string) => `own_${checkField(field)}`;
export const ownColumn = (field: string) => `"${key(field)}"`;
/** What an own column holds of a field: its string or number, else null (the value stays in the document). */
export const ownValue = (value: unknown): string | number | null =>
  typeof value === "string" || typeof value === "number" ? value : null;

/**
 * The fields a table keeps apart from its documents' JSON, each in a column of its own (`own_<field>`):
 * - Large JSON texts (a slot's `data`, a restore point's `payload`), which inside the JSON were escaped
 *   on every write and unescaped on every read: a 1 KiB slot's row read and parsed in 7.4 µs with its
 *   data inside, 4.8 µs beside it, and encoded in 1.9 µs against 0.6 µs (issue 30).
 * - Counters moved by increments (an account's stored bytes), which inside the JSON made each increment
 *   rewrite the document with `json_set`: a save that moved its account's count cost 9% more CPU for it.
 * A value that is not a string or a number stays in the document. One instance per table, shared by its
 * every handle, so a column added later is seen by all.
 */
export class OwnColumns {
  readonly fields: string[] = [];
  private readonly keys: string[] = [];
  /** What a read selects to make its documents. */
  select = "doc";

  has(field: string): boolean {
    return this.fields.includes(field);
  }

  add(field: string): void {
    this.fields.push(field);
    this.keys.push(key(field));
    this.select += `, ${ownColumn(field)}`;
  }

  /** A row of `select` as its document. */
  docOf(row: { doc: string }): Doc {
    const doc = JSON.parse(row.doc) as Record<string, unknown>;
    for (let i = 0; i < this.keys.length; i++) {
      const value = (row as unknown as Record<string, unknown>)[this.keys[i]!];
      if (value !== null && value !== undefined) doc[this.fields[i]!] = value;
    }
    return doc as Doc;
  }

  /** `doc` as its row: the JSON of every other defined field, and each own column's value. */
  rowOf(doc: Doc): { json: string; values: (string | number | null)[] } {
    const rest: Record<string, unknown> = {};
    for (const field in doc) {
      const value = doc[field];
      if (value !== undefined && !(ownValue(value) !== null && this.has(field))) rest[field] = value;
    }
    return { json: JSON.stringify(rest), values: this.fields.map((f) => ownValue(doc[f])) };
  }
}

/** A store's tables' own columns, read from each table once, and a declared field moved into its column. */
export function ownColumns(db: Database) {
  const tables = new Map<string, OwnColumns>();
  return {
    ownColumnsOf(table: string): OwnColumns {
      let own = tables.get(table);
      if (!own) {
        own = new OwnColumns();
        for (const field of prefixedColumns(db, table, "own_")) own.add(field);
        tables.set(table, own);
      }
      return own;
    },

    /**
     * A field the table keeps inside its documents until now: each stored string or number moves to its
     * column (declared without a type, so each keeps its own), in the caller's transaction.
     */
    moveApart(table: string, field: string, own: OwnColumns): void {
      if (own.has(field)) return;
      const path = `'$.${checkField(field)}'`;
      db.exec(`ALTER TABLE "${table}" ADD COLUMN ${ownColumn(field)}`);
      db.exec(
        `UPDATE "${table}" SET ${ownColumn(field)} = json_extract(doc, ${path}), doc = json_remove(doc, ${path}) ` +
          `WHERE json_type(doc, ${path}) IN ('text', 'integer', 'real')`,
      );
      own.add(field);
    },
  };
}
