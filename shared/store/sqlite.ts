import { Database, type SQLQueryBindings, type Statement } from "bun:sqlite";
import { dirname } from "node:path";
import { makePrivateDir, makePrivateFile } from "../util/private-files.ts";
import {
  type Collection,
  type CollectionOptions,
  checkField,
  type Doc,
  type Filter,
  type FindOptions,
  type Index,
  type Quota,
  type Store,
  type Write,
} from "./port.ts";
import { type Columns, column, columnValue, indexedColumns, jsonPath } from "./sqlite-columns.ts";
import { GroupCommit, type NowCollection } from "./sqlite-group-commit.ts";
import { IncrementStatements } from "./sqlite-increment.ts";
import { type OwnColumns, ownColumn, ownColumns, ownValue } from "./sqlite-own-columns.ts";
import { fieldSqlOf, int, where } from "./sqlite-where.ts";

const withoutUndefined = <T extends object>(o: T): T => {
  const out: Record<string, unknown> = {};
  for (const key in o) if (o[key] !== undefined) out[key] = o[key];
  return out as T;
};

class SqliteCollection<T extends Doc> implements Collection<T>, NowCollection {
  /** The read by id with the table's own columns, made again only when the table gains one. */
  private reading?: { select: string; statement: Statement<{ doc: string }, [string]> };
  /** The insert with the table's columns, made again only when the table gains one. */
  private inserting?: { size: number; fields: string[]; statement: Statement };
  private readonly writeRow: Statement;
  private readonly increments: IncrementStatements;
  private readonly fieldSql: (field: string) => string;

  constructor(
    private readonly db: Database,
    private readonly table: string,
    private readonly writer: GroupCommit,
    private readonly columns: Columns,
    private readonly own: OwnColumns,
  ) {
    this.writeRow = db.prepare(`UPDATE "${table}" SET doc = ? WHERE _id = ?`);
    this.fieldSql = fieldSqlOf(columns, own);
    this.increments = new IncrementStatements(db, table, columns, own);
  }

  private rows(sql: string, args: SQLQueryBindings[]): T[] {
    return this.db
      .query<{ doc: string }, SQLQueryBindings[]>(sql)
      .all(...args)
      .map((r) => this.own.docOf(r) as T);
  }

  private byId(id: string): T | null {
    if (this.reading?.select !== this.own.select) {
      const select = this.own.select;
      this.reading = { select, statement: this.db.prepare(`SELECT ${select} FROM "${this.table}" WHERE _id = ?`) };
    }
    const row = this.reading.statement.get(id);
    return row ? (this.own.docOf(row) as T) : null;
  }

  async get(id: string) {
    this.writer.reads.enter();
    return this.byId(id);
  }

  async findOne(filter: Filter<T>, sort?: FindOptions<T>["sort"]): Promise<T | null> {
    return this.findNow(filter, { sort, limit: 1 })[0] ?? null;
  }

  async find(filter: Filter<T>, options: FindOptions<T> = {}) {
    return this.findNow(filter, options);
  }

  private findNow(filter: Filter<T>, options: FindOptions<T>): T[] {
    this.writer.reads.enter();
    const w = where(filter as Filter<Doc>, this.fieldSql);
    const direction = options.sort?.direction === -1 ? "DESC" : "ASC";
    // The rowid breaks ties, so pages of one listing never overlap or skip a row: every index ends in
    // it, so a sort on an indexed field is read off the index (sqlite-columns.ts, indexOn).
    const sorted = options.sort && this.fieldSql(options.sort.field);
    const order = sorted ? `ORDER BY ${sorted} ${direction}, rowid ${direction}` : "";
    // LIMIT -1 is SQLite's "no limit"; an OFFSET needs a LIMIT before it.
    const page = `LIMIT ${int(options.limit ?? -1)} OFFSET ${int(options.skip ?? 0)}`;
    return this.rows(`SELECT ${this.own.select} FROM "${this.table}" ${w.sql} ${order} ${page}`, w.args);
  }

  async count(filter: Filter<T>, upTo?: number) {
    this.writer.reads.enter();
    const w = where(filter as Filter<Doc>, this.fieldSql);
    const rows =
      upTo === undefined ? `"${this.table}" ${w.sql}` : `(SELECT 1 FROM "${this.table}" ${w.sql} LIMIT ${int(upTo)})`;
    return this.db.query<{ n: number }, SQLQueryBindings[]>(`SELECT count(*) AS n FROM ${rows}`).get(...w.args)!.n;
  }

  insert(doc: T, then?: readonly Write[], quota?: Quota) {
    // Another database's counter would commit apart from the insert: the quota would not hold.
    if (quota && (quota.in as unknown as SqliteCollection<Doc>).writer !== this.writer)
      throw new Error("a quota's counter must be in the insert's store");
    return this.writer.submit<void>({ kind: "insert", c: this, doc, then, quota });
  }

  update(filter: Filter<T>, changes: Partial<T>, then?: readonly Write[]) {
    return this.writer.submit<T | null>({
      kind: "update",
      c: this,
      filter: filter as Filter<Doc>,
      changes,
      many: false,
      then,
    });
  }

  increment<F extends keyof T & string>(id: string, field: F, by: number, init: Omit<T, "_id" | F>): Promise<T> {
    return this.writer.submit<T>({ kind: "increment", c: this, id, field, by, init });
  }

  updateMany(filter: Filter<T>, changes: Partial<T>) {
    return this.writer.submit<number>({ kind: "update", c: this, filter: filter as Filter<Doc>, changes, many: true });
  }

  delete(filter: Filter<T>) {
    return this.writer.submit<number>({ kind: "delete", c: this, filter: filter as Filter<Doc> });
  }

  // The *Now methods run inside GroupCommit's transaction, on the one connection: no other writer can
  // slip between a filter's match and its write.

  insertNow(doc: Doc): void {
    const size = this.columns.size + this.own.fields.length;
    if (this.inserting?.size !== size) {
      const fields = [...this.columns];
      const names = [...fields.map(column), ...this.own.fields.map(ownColumn)].map((c) => `, ${c}`).join("");
      const values = `?, ?${", ?".repeat(size)}`;
      const statement = this.db.prepare(`INSERT INTO "${this.table}" (_id, doc${names}) VALUES (${values})`);
      this.inserting = { size, fields, statement };
    }
    const { fields, statement } = this.inserting;
    const row = this.own.rowOf(doc);
    statement.run(doc._id, row.json, ...fields.map((f) => columnValue(doc[f])), ...row.values);
  }

  updateNow(filter: Filter<Doc>, changes: Partial<Doc>, many: boolean): T[] {
    const matched = many ? this.matching(filter) : this.firstMatching(filter);
    const set = withoutUndefined(changes);
    const touched = this.columns.size === 0 ? [] : Object.keys(set).filter((f) => this.columns.has(f));
    // An own column is written only by a write that changes it: a version's bump leaves a slot's data alone.
    const own = this.own.fields.length === 0 ? [] : Object.keys(set).filter((f) => this.own.has(f));
    const write =
      touched.length + own.length === 0
        ? this.writeRow
        : this.db.query(
            `UPDATE "${this.table}" SET doc = ?${[...touched.map(column), ...own.map(ownColumn)]
              .map((c) => `, ${c} = ?`)
              .join("")} WHERE _id = ?`,
          );
    for (let i = 0; i < matched.length; i++) {
      const next = Object.assign(matched[i]!, set);
      const row = this.own.rowOf(next);
      write.run(row.json, ...touched.map((f) => columnValue(next[f])), ...own.map((f) => ownValue(next[f])), next._id);
    }
    return matched;
  }

  private matching(filter: Filter<Doc>, limit = ""): T[] {
    const w = where(filter, this.fieldSql);
    return this.rows(`SELECT ${this.own.select} FROM "${this.table}" ${w.sql} ${limit}`, w.args);
  }

  /**
   * A conditional update by id (a versioned write's `{_id, version}`) reads its row by the primary key and
   * checks the rest here: in SQL, each field outside a column is a `json_extract` over the whole
   * document, a slot's data included (issue 30). Scalars compare as `where` compares them.
   */
  private firstMatching(filter: Filter<Doc>): T[] {
    const id = filter._id;
    // Only `_id` can be anything but a scalar (a prefix: port.ts, Filter).
    if (typeof id !== "string") return this.matching(filter, "LIMIT 1");
    const doc = this.byId(id);
    if (!doc) return [];
    for (const field in filter) {
      const wanted = filter[field];
      const value = (doc as Doc)[field];
      if (wanted === undefined) continue;
      if (wanted === null ? value !== undefined && value !== null : value !== wanted) return [];
    }
    return [doc];
  }

  incrementNow(id: string, field: string, by: number, init: object): T {
    return this.incrementAllNow(id, { [field]: by }, init);
  }

  // One statement for every field: the adds happen inside SQLite, never as a read here and a write later,
  // and the document's JSON is rewritten and read back once, not once per field. A missing document is
  // seeded as field-by-field increments would leave it: the first field at its `by`, the others added to `init`'s.
  incrementAllNow(id: string, by: Record<string, number>, init: object): T;
  incrementAllNow(id: string, by: Record<string, number>, init: object, answer: false): void;
  incrementAllNow(id: string, by: Record<string, number>, init: object, answer = true): T | undefined {
    const fields = Object.keys(by);
    const { statement: update, order } = this.increments.of(fields, answer);
    const args: SQLQueryBindings[] = order.map((f) => by[f]!);
    args.push(id);
    // The document is there nearly always (an account's count, an environment's): updated first, and
    // seeded only when missing, within the one writer's transaction, so nothing can insert it in between.
    const seeded = () => {
      const seed: Record<string, unknown> = { _id: id, ...init };
      for (const [i, f] of fields.entries()) seed[f] = i === 0 ? by[f] : Number(seed[f] ?? 0) + by[f]!;
      const doc = withoutUndefined(seed) as Doc;
      this.insertNow(doc);
      return doc as T;
    };
    if (!answer) {
      if (update.run(...args).changes === 0) seeded();
      return undefined;
    }
    const row = update.get(...args);
    return row ? (this.own.docOf(row) as T) : seeded();
  }

  deleteNow(filter: Filter<Doc>): number {
    const w = where(filter, this.fieldSql);
    return this.db.query(`DELETE FROM "${this.table}" ${w.sql}`).run(...w.args).changes;
  }
}

const writers = new WeakMap<Store, GroupCommit>();

/**
 * How many commits a SQLite store has made: each is an fsync, what bounds the embedded deployment's
 * durable writes (README, How it is built), so tests count them instead of timing them.
 */
export function commitsOf(store: Store): number {
  const writer = writers.get(store);
  if (!writer) throw new Error("not a SQLite store");
  return writer.commits;
}

/** SQLite store for the embedded deployment: one file, WAL, every commit synced to disk, group commit. */
export function createSqliteStore(file: string): Store {
  if (file !== ":memory:") {
    // Owner-only from the first byte; SQLite gives the -wal and -shm files the database file's mode.
    makePrivateDir(dirname(file));
    makePrivateFile(file);
  }
  const db = new Database(file, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL"); // an accepted write survives a power cut, not only a crash
  db.exec("PRAGMA busy_timeout = 5000");
  // Each write of a group commit runs in a savepoint, whose undo copies of the pages it changes went to a
  // temporary file once past 64 KiB: about six page writes there per save (issue 30). Kept in memory, a
  // batch's copies are a few hundred KiB at most, freed at its commit.
  db.exec("PRAGMA temp_store = MEMORY");
  // A checkpoint copies each page changed since the last one into the database file once, however often
  // it changed: every 10,000 WAL frames (about 40 MiB) instead of SQLite's 1,000, the pages every save
  // rewrites (its slot's, its account's, the indexes' ends) are copied a tenth as often (saves 4% less CPU).
  db.exec("PRAGMA wal_autocheckpoint = 10000");
  const writer = new GroupCommit(db);
  const { columnsOf, indexOn } = indexedColumns(db);
  const { ownColumnsOf, moveApart } = ownColumns(db);
  const store: Store = {
    async collection<T extends Doc>(name: string, indexes: Index[] = [], { apart = [] }: CollectionOptions = {}) {
      const table = checkField(name);
      writer.reads.close(); // what follows writes, outside any read
      db.exec(`CREATE TABLE IF NOT EXISTS "${table}" (_id TEXT PRIMARY KEY, doc TEXT NOT NULL)`);
      const columns = columnsOf(table);
      const own = ownColumnsOf(table);
      // One step: a crash midway leaves neither a column nobody filled nor an index dropped and not made.
      if (indexes.length + apart.length > 0)
        db.transaction(() => {
          const source = (field: string) => (own.has(field) ? ownColumn(field) : jsonPath(field));
          for (const index of indexes) indexOn(table, index, columns, source);
          for (const field of apart) moveApart(table, field, own);
        }).immediate();
      return new SqliteCollection<T>(db, table, writer, columns, own) as Collection<T>;
    },
    async ping() {
      db.query("SELECT 1").get();
    },
    async close() {
      writer.flush();
      writer.reads.close();
      db.close();
    },
  };
  writers.set(store, writer);
  return store;
}
