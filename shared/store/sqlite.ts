import { Database, type SQLQueryBindings } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { type Collection, type Doc, DuplicateKeyError, type Filter, type FindOptions, type Index, type Store, checkField } from "./port.ts";

const path = (field: string) => `json_extract(doc, '$.${checkField(field)}')`;
const bind = (v: unknown): SQLQueryBindings => (typeof v === "boolean" ? (v ? 1 : 0) : (v as SQLQueryBindings));

function where(filter: Filter<Doc>): { sql: string; args: SQLQueryBindings[] } {
  const parts: string[] = [];
  const args: SQLQueryBindings[] = [];
  for (const [field, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    if (field === "_id") {
      parts.push("_id = ?");
      args.push(value as string);
    } else if (value === null) {
      parts.push(`${path(field)} IS NULL`);
    } else {
      parts.push(`${path(field)} = ?`);
      args.push(bind(value));
    }
  }
  return { sql: parts.length ? `WHERE ${parts.join(" AND ")}` : "", args };
}

/** Paging numbers are spliced into SQL: only whole numbers get there. */
const int = (n: number) => {
  if (!Number.isInteger(n)) throw new Error(`not an integer: ${n}`);
  return n;
};

const withoutUndefined = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

function isUniqueViolation(err: unknown): string | null {
  const e = err as { code?: string; message?: string };
  if (e?.code === "SQLITE_CONSTRAINT_UNIQUE" || e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY") return e.message ?? "unique";
  return null;
}

class SqliteCollection<T extends Doc> implements Collection<T> {
  constructor(
    private readonly db: Database,
    private readonly table: string,
  ) {}

  private rows(sql: string, args: SQLQueryBindings[]): T[] {
    return this.db
      .query<{ doc: string }, SQLQueryBindings[]>(sql)
      .all(...args)
      .map((r) => JSON.parse(r.doc) as T);
  }

  async get(id: string) {
    return this.rows(`SELECT doc FROM "${this.table}" WHERE _id = ?`, [id])[0] ?? null;
  }

  async findOne(filter: Filter<T>, sort?: FindOptions<T>["sort"]): Promise<T | null> {
    return (await this.find(filter, { sort, limit: 1 }))[0] ?? null;
  }

  async find(filter: Filter<T>, options: FindOptions<T> = {}) {
    const w = where(filter as Filter<Doc>);
    const direction = options.sort?.direction === -1 ? "DESC" : "ASC";
    // _id breaks ties, so pages of one listing never overlap or skip a row.
    const order = options.sort ? `ORDER BY ${path(options.sort.field)} ${direction}, _id ${direction}` : "";
    // LIMIT -1 is SQLite's "no limit"; an OFFSET needs a LIMIT before it.
    const page = `LIMIT ${int(options.limit ?? -1)} OFFSET ${int(options.skip ?? 0)}`;
    return this.rows(`SELECT doc FROM "${this.table}" ${w.sql} ${order} ${page}`, w.args);
  }

  async count(filter: Filter<T>) {
    const w = where(filter as Filter<Doc>);
    return this.db.query<{ n: number }, SQLQueryBindings[]>(`SELECT count(*) AS n FROM "${this.table}" ${w.sql}`).get(...w.args)!.n;
  }

  async insert(doc: T) {
    try {
      this.db.query(`INSERT INTO "${this.table}" (_id, doc) VALUES (?, ?)`).run(doc._id, JSON.stringify(withoutUndefined(doc)));
    } catch (err) {
      const index = isUniqueViolation(err);
      if (index) throw new DuplicateKeyError(index);
      throw err;
    }
  }

  async update(filter: Filter<T>, changes: Partial<T>) {
    return this.updateWhere(filter, changes, "LIMIT 1")[0] ?? null;
  }

  // One statement: the add happens inside SQLite under its write lock, never as a read here and a
  // write later, so concurrent increments from any thread or process all count.
  async increment<F extends keyof T & string>(id: string, field: F, by: number, init: Omit<T, "_id" | F>): Promise<T> {
    const at = `'$.${checkField(field)}'`;
    const seed = JSON.stringify(withoutUndefined({ _id: id, ...init, [field]: by }));
    const sql =
      `INSERT INTO "${this.table}" (_id, doc) VALUES (?, ?) ` +
      `ON CONFLICT(_id) DO UPDATE SET doc = json_set(doc, ${at}, coalesce(json_extract(doc, ${at}), 0) + ?) RETURNING doc`;
    try {
      const row = this.db.query<{ doc: string }, SQLQueryBindings[]>(sql).get(id, seed, by);
      return JSON.parse(row!.doc) as T;
    } catch (err) {
      const index = isUniqueViolation(err);
      if (index) throw new DuplicateKeyError(index);
      throw err;
    }
  }

  async updateMany(filter: Filter<T>, changes: Partial<T>) {
    return this.updateWhere(filter, changes, "").length;
  }

  // Read and write inside one IMMEDIATE transaction: it takes the write lock first, so no other
  // writer (thread or process) can slip between the filter match and the write.
  private updateWhere(filter: Filter<T>, changes: Partial<T>, limit: "LIMIT 1" | ""): T[] {
    const w = where(filter as Filter<Doc>);
    const tx = this.db.transaction(() => {
      const matched = this.rows(`SELECT doc FROM "${this.table}" ${w.sql} ${limit}`, w.args);
      const write = this.db.query(`UPDATE "${this.table}" SET doc = ? WHERE _id = ?`);
      return matched.map((doc) => {
        const next = { ...doc, ...withoutUndefined(changes) } as T;
        try {
          write.run(JSON.stringify(next), next._id);
        } catch (err) {
          const index = isUniqueViolation(err);
          if (index) throw new DuplicateKeyError(index);
          throw err;
        }
        return next;
      });
    });
    return tx.immediate();
  }

  async delete(filter: Filter<T>) {
    const w = where(filter as Filter<Doc>);
    return this.db.query(`DELETE FROM "${this.table}" ${w.sql}`).run(...w.args).changes;
  }
}

/** SQLite store for the embedded deployment: one file, WAL, every commit synced to disk. */
export function createSqliteStore(file: string): Store {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL"); // an accepted write survives a power cut, not only a crash
  db.exec("PRAGMA busy_timeout = 5000");
  return {
    async collection<T extends Doc>(name: string, indexes: Index[] = []) {
      const table = checkField(name);
      db.exec(`CREATE TABLE IF NOT EXISTS "${table}" (_id TEXT PRIMARY KEY, doc TEXT NOT NULL)`);
      for (const index of indexes) {
        const columns = index.fields.map(path).join(", ");
        db.exec(`CREATE ${index.unique ? "UNIQUE " : ""}INDEX IF NOT EXISTS "${table}_${checkField(index.name)}" ON "${table}" (${columns})`);
      }
      return new SqliteCollection<T>(db, table) as Collection<T>;
    },
    async ping() {
      db.query("SELECT 1").get();
    },
    async close() {
      db.close();
    },
  };
}
