import type { SQLQueryBindings } from "bun:sqlite";
import { type Doc, type Filter, type IdPrefix, idRange } from "./port.ts";
import { bind, type Columns, path } from "./sqlite-columns.ts";
import { type OwnColumns, ownColumn } from "./sqlite-own-columns.ts";

/** Where a field's value is read from in SQL: its index column, its own column, or the document. */
export const fieldSqlOf = (columns: Columns, own: OwnColumns) => (field: string) =>
  own.has(field) && !columns.has(field) ? ownColumn(field) : path(field, columns);

/** A filter as a WHERE clause and its arguments (port.ts, Filter). */
export function where(
  filter: Filter<Doc>,
  fieldSql: (field: string) => string,
): { sql: string; args: SQLQueryBindings[] } {
  const parts: string[] = [];
  const args: SQLQueryBindings[] = [];
  for (const field in filter) {
    const value = filter[field];
    if (value === undefined) continue;
    if (field === "_id" && typeof value === "object" && value !== null) {
      const { start, end } = idRange(value as IdPrefix);
      parts.push("_id >= ? AND _id < ?");
      args.push(start, end);
    } else if (field === "_id") {
      parts.push("_id = ?");
      args.push(value as string);
    } else if (value === null) {
      parts.push(`${fieldSql(field)} IS NULL`);
    } else {
      parts.push(`${fieldSql(field)} = ?`);
      args.push(bind(value));
    }
  }
  return { sql: parts.length ? `WHERE ${parts.join(" AND ")}` : "", args };
}

/** Paging numbers are spliced into SQL: only whole numbers get there. */
export const int = (n: number) => {
  if (!Number.isInteger(n)) throw new Error(`not an integer: ${n}`);
  return n;
};
