import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";
import { checkField } from "./port.ts";
import { type Columns, column } from "./sqlite-columns.ts";
import { type OwnColumns, ownColumn } from "./sqlite-own-columns.ts";

/** An increment's UPDATE and the order its fields' amounts are bound in. */
export type Increment = { statement: Statement<{ doc: string }, SQLQueryBindings[]>; order: string[] };

/**
 * A table's increments by the fields they add, each statement built and prepared once instead of on
 * every count. The table's shape is in the key: a column added later makes the statement again.
 */
export class IncrementStatements {
  private readonly made = new Map<string, Increment>();

  constructor(
    private readonly db: Database,
    private readonly table: string,
    private readonly columns: Columns,
    private readonly own: OwnColumns,
  ) {}

  /** With `answer`, the statement returns the document as it is after the add. */
  of(fields: string[], answer: boolean): Increment {
    const key = `${answer ? "a" : "n"}${this.own.fields.length}.${this.columns.size}:${fields.join(",")}`;
    let made = this.made.get(key);
    if (!made) {
      made = this.make(fields, answer);
      if (this.made.size >= 64) this.made.clear();
      this.made.set(key, made);
    }
    return made;
  }

  private make(fields: string[], answer: boolean): Increment {
    // A counter in a column of its own is added there, and the document is not rewritten for it.
    const inDoc = fields.filter((f) => !this.own.has(f));
    const apart = fields.filter((f) => this.own.has(f));
    const touched = fields.filter((f) => this.columns.has(f));
    const old = (f: string) => (this.own.has(f) ? ownColumn(f) : `json_extract(doc, '$.${checkField(f)}')`);
    const added = (f: string) => `coalesce(${old(f)}, 0) + ?`;
    const sets = [
      ...(inDoc.length === 0
        ? []
        : [`doc = json_set(doc, ${inDoc.map((f) => `'$.${checkField(f)}', ${added(f)}`).join(", ")})`]),
      ...apart.map((f) => `${ownColumn(f)} = ${added(f)}`),
      ...touched.map((f) => `${column(f)} = ${added(f)}`),
    ];
    // A follower without a budget needs no answer: no document read back and parsed.
    const returning = answer ? ` RETURNING ${this.own.select}` : "";
    const statement = this.db.prepare<{ doc: string }, SQLQueryBindings[]>(
      `UPDATE "${this.table}" SET ${sets.join(", ")} WHERE _id = ?${returning}`,
    );
    return { statement, order: [...inDoc, ...apart, ...touched] };
  }
}
