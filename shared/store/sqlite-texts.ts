import type { Database } from "bun:sqlite";
import { checkField, type Doc } from "./port.ts";

const key = (field: string) => `tx_${checkField(field)}`;
export const textColumn = (field: string) => `"${key(field)}"`;

/**
 * A table's large JSON texts (a slot's `data`, a restore point's `payload`), each kept in a column of its
 * own (`tx_<field>`) instead of inside the document's JSON, where it was escaped on every write and
 * unescaped on every read: a 1 KiB slot's row read and parsed in 7.4 µs with its data inside, 4.8 µs
 * beside it, and encoded in 1.9 µs against 0.6 µs (issue 30). A value that is not a string stays in the
 * document. One instance per table, shared by its every handle, so a column added later is seen by all.
 */
export class TextColumns {
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
    this.select += `, ${textColumn(field)}`;
  }

  /** A row of `select` as its document. */
  docOf(row: { doc: string }): Doc {
    const doc = JSON.parse(row.doc) as Record<string, unknown>;
    for (let i = 0; i < this.keys.length; i++) {
      const text = (row as unknown as Record<string, unknown>)[this.keys[i]!];
      if (typeof text === "string") doc[this.fields[i]!] = text;
    }
    return doc as Doc;
  }

  /** `doc` as its row: the JSON of every other defined field, and each text (null where it is no string). */
  rowOf(doc: Doc): { json: string; texts: (string | null)[] } {
    const rest: Record<string, unknown> = {};
    for (const field in doc) {
      const value = doc[field];
      if (value !== undefined && !(typeof value === "string" && this.has(field))) rest[field] = value;
    }
    return { json: JSON.stringify(rest), texts: this.fields.map((f) => textOf(doc[f])) };
  }
}

export const textOf = (value: unknown): string | null => (typeof value === "string" ? value : null);

/** A store's tables' text columns, read from each table once, and a declared text moved into its column. */
export function textColumns(db: Database) {
  const tables = new Map<string, TextColumns>();
  return {
    textsOf(table: string): TextColumns {
      let texts = tables.get(table);
      if (!texts) {
        texts = new TextColumns();
        const names = db.query<{ name: string }, []>(`PRAGMA table_info("${table}")`).all();
        for (const { name } of names) if (name.startsWith("tx_")) texts.add(name.slice(3));
        tables.set(table, texts);
      }
      return texts;
    },

    /** A text the table keeps inside its documents until now: each stored value moves to its column. */
    textOn(table: string, field: string, texts: TextColumns): void {
      if (texts.has(field)) return;
      const path = `'$.${checkField(field)}'`;
      db.exec(`ALTER TABLE "${table}" ADD COLUMN ${textColumn(field)} TEXT`);
      db.exec(
        `UPDATE "${table}" SET ${textColumn(field)} = json_extract(doc, ${path}), doc = json_remove(doc, ${path}) ` +
          `WHERE json_type(doc, ${path}) = 'text'`,
      );
      texts.add(field);
    },
  };
}
