import type { Database } from "bun:sqlite";
import { checkField, type Index } from "./port.ts";

/**
 * Every field an index names gets a column of its own (`f_<field>`), and the index is on the columns,
 * not on `json_extract(doc, ...)`. An index on an expression of `doc` is worked out again by every
 * UPDATE of `doc`, for the old row and the new, each a parse of the document's JSON, and its entry
 * deleted and written back: an account, whose byte counts move with each save, paid that for all its
 * indexes on every sync (issue 30), and a slot for its four. Triggers keep the columns equal to the
 * document, each only when its own value changed, so a write that changes no indexed field touches no
 * index, and every writer of the file (an older server too) keeps them right.
 */
export const columnOf = (field: string) => `"f_${checkField(field)}"`;

export const extract = (doc: string, field: string) => `json_extract(${doc}, '$.${checkField(field)}')`;

/**
 * The fields of `table` that have a column: those its indexes name (created, filled and kept by
 * triggers when missing) and any an earlier start made. Indexes left on expressions from before
 * columns are made again on the columns, under their names.
 */
export function indexColumns(db: Database, table: string, indexes: readonly Index[]): Set<string> {
  const present = new Set(
    db
      .query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${table}')`)
      .all()
      .map((c) => c.name)
      .filter((name) => name.startsWith("f_"))
      .map((name) => name.slice(2)),
  );
  const wanted = [...new Set(indexes.flatMap((i) => i.fields))].filter((f) => f !== "_id" && !present.has(f));
  if (wanted.length > 0)
    db.transaction(() => {
      for (const field of wanted) {
        const column = columnOf(field);
        db.exec(`ALTER TABLE "${table}" ADD COLUMN ${column}`);
        db.exec(`UPDATE "${table}" SET ${column} = ${extract("doc", field)}`);
        for (const event of ["INSERT", "UPDATE OF doc"])
          db.exec(
            `CREATE TRIGGER IF NOT EXISTS "${table}_f_${field}_${event === "INSERT" ? "insert" : "update"}" ` +
              `AFTER ${event} ON "${table}" FOR EACH ROW WHEN new.${column} IS NOT ${extract("new.doc", field)} ` +
              `BEGIN UPDATE "${table}" SET ${column} = ${extract("new.doc", field)} WHERE _id = new._id; END`,
          );
        present.add(field);
      }
    })();
  for (const index of indexes) {
    const name = `${table}_${checkField(index.name)}`;
    const existing = db
      .query<{ sql: string }, [string]>("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?")
      .get(name);
    if (existing?.sql.includes("json_extract")) db.exec(`DROP INDEX "${name}"`);
    const columns = index.fields.map((f) => (f === "_id" ? "_id" : columnOf(f))).join(", ");
    db.exec(`CREATE ${index.unique ? "UNIQUE " : ""}INDEX IF NOT EXISTS "${name}" ON "${table}" (${columns})`);
  }
  return present;
}
