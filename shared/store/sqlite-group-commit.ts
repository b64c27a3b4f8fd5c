import type { Database, Statement } from "bun:sqlite";
import {
  afterDelete,
  BudgetExceededError,
  type Doc,
  DuplicateKeyError,
  type Filter,
  type Quota,
  QuotaExceededError,
  type Write,
} from "./port.ts";
import { ReadTurn } from "./sqlite-read-turn.ts";

/** A collection's writes as they run inside the batch's transaction (sqlite.ts, the *Now methods). */
export interface NowCollection {
  insertNow(doc: Doc): void;
  updateNow(filter: Filter<Doc>, changes: Partial<Doc>, many: boolean): Doc[];
  incrementNow(id: string, field: string, by: number, init: object): Doc;
  incrementAllNow(id: string, by: Record<string, number>, init: object): Doc;
  incrementAllNow(id: string, by: Record<string, number>, init: object, answer: false): void;
  deleteNow(filter: Filter<Doc>): number;
}

function uniqueViolation(err: unknown): DuplicateKeyError | null {
  const e = err as { code?: string; message?: string };
  if (e?.code === "SQLITE_CONSTRAINT_UNIQUE" || e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY")
    return new DuplicateKeyError(e.message ?? "unique");
  return null;
}

/** One queued write: what to do, never a closure, so a batch costs no allocation beyond its record. */
type Op =
  | { kind: "insert"; c: NowCollection; doc: Doc; then?: readonly Write[]; quota?: Quota }
  | {
      kind: "update";
      c: NowCollection;
      filter: Filter<Doc>;
      changes: Partial<Doc>;
      many: boolean;
      then?: readonly Write[];
    }
  | { kind: "increment"; c: NowCollection; id: string; field: string; by: number; init: object }
  | { kind: "delete"; c: NowCollection; filter: Filter<Doc> };
type Queued = Op & { resolve(value: unknown): void; reject(err: unknown): void };

/**
 * Group commit on one connection. Writes queue during a turn of the event loop and commit together
 * in one transaction on the next (requests that arrived while the previous commit's fsync held the
 * loop make up the next batch). A write that fails rolls back alone (flush); each promise settles
 * only after the COMMIT that holds its write has returned, which under `synchronous=FULL` means it is
 * on disk.
 */
export class GroupCommit {
  /** COMMITs that returned: each one fsync under `synchronous=FULL` (commitsOf). */
  commits = 0;
  /** The reads between writes: ended before each batch's transaction begins. */
  readonly reads: ReadTurn;
  private queue: Queued[] = [];
  private scheduled = false;
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly rollback: Statement;
  private readonly savepoint: Statement;
  private readonly release: Statement;
  private readonly undo: Statement;

  constructor(private readonly db: Database) {
    this.reads = new ReadTurn(db);
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
    this.rollback = db.prepare("ROLLBACK");
    this.savepoint = db.prepare("SAVEPOINT w");
    this.release = db.prepare("RELEASE w");
    this.undo = db.prepare("ROLLBACK TO w");
  }

  submit<R>(op: Op): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ ...op, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Whether a transaction is open; none once the database is closed (a store taken down). */
  private inTransaction(): boolean {
    try {
      return this.db.inTransaction;
    } catch {
      return false;
    }
  }

  /** Commits what is queued now (at close: nothing queued is dropped). */
  flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.reads.close();
    // First as one transaction without savepoints: a savepoint keeps a copy of every page its write
    // first changes, about one page per index a save's restore point touches, and nearly no batch has a
    // write that fails (issue 30). When one does, nothing of the batch is kept, and it runs again with
    // each write in a savepoint of its own, so that write fails alone.
    if (!this.commitBatch(batch, false)) this.commitBatch(batch, true);
  }

  /**
   * Runs the batch in one transaction and settles every write of it. Without savepoints (`isolated`
   * false), a write that fails rolls the whole batch back unsettled: false, to run it again isolated.
   */
  private commitBatch(batch: Queued[], isolated: boolean): boolean {
    const results: unknown[] = new Array(batch.length);
    const failed: (unknown | undefined)[] = new Array(batch.length);
    try {
      this.begin.run();
    } catch (err) {
      for (const q of batch) q.reject(err);
      return true;
    }
    try {
      for (let i = 0; i < batch.length; i++) {
        if (!isolated) {
          try {
            results[i] = apply(batch[i]!);
          } catch {
            if (this.inTransaction()) this.rollback.run();
            return false;
          }
          continue;
        }
        this.savepoint.run();
        try {
          results[i] = apply(batch[i]!);
          this.release.run();
        } catch (err) {
          // An error that ended the transaction itself (SQLite rolls back on its own after some I/O
          // errors) took every savepoint with it: the whole batch fails below.
          if (!this.inTransaction()) throw err;
          // A quota without room keeps its count, and wrote nothing else (port.ts, Quota).
          if (!(err instanceof QuotaExceededError)) this.undo.run();
          this.release.run();
          failed[i] = uniqueViolation(err) ?? err;
        }
      }
      this.commit.run();
      this.commits++;
    } catch (err) {
      // Nothing of the batch is durable: every write of it fails, none is half done. Thrown from here
      // (a setImmediate callback), it would leave the writes unanswered and be an uncaught error.
      if (this.inTransaction()) this.rollback.run();
      for (const q of batch) q.reject(err);
      return true;
    }
    for (let i = 0; i < batch.length; i++) {
      if (failed[i] !== undefined) batch[i]!.reject(failed[i]);
      else batch[i]!.resolve(results[i]);
    }
    return true;
  }
}

function apply(op: Op): unknown {
  switch (op.kind) {
    case "insert":
      if (op.quota) admit(op.quota);
      op.c.insertNow(op.doc);
      applyAll(op.then);
      return undefined;
    case "update": {
      const updated = op.c.updateNow(op.filter, op.changes, op.many);
      if (updated.length > 0) applyAll(op.then);
      return op.many ? updated.length : (updated[0] ?? null);
    }
    case "increment":
      return op.c.incrementNow(op.id, op.field, op.by, op.init);
    case "delete":
      return op.c.deleteNow(op.filter);
  }
}

/** Counts one more under the quota, in the insert's savepoint: past `atMost` the insert does not happen. */
function admit(q: Quota): void {
  const counter = (q.in as unknown as NowCollection).incrementNow(q.increment, q.field, 1, q.init);
  const count = Number(counter[q.field] ?? 0);
  if (count > q.atMost) throw new QuotaExceededError(count);
}

function applyAll(writes: readonly Write[] | undefined): void {
  if (!writes) return;
  for (const w of writes) {
    if ("insert" in w) (w.into as unknown as NowCollection).insertNow(w.insert);
    else if ("delete" in w) {
      applyAll(afterDelete(w, (w.from as unknown as NowCollection).deleteNow(w.delete) > 0));
    } else incrementWithin(w);
  }
}

/** A follower's increments; past its `atMost` the write's savepoint rolls back (port.ts, Write). */
function incrementWithin(w: Extract<Write, { increment: string }>): void {
  if (Object.keys(w.by).length === 0) return;
  const c = w.in as unknown as NowCollection;
  if (!w.atMost) {
    c.incrementAllNow(w.increment, w.by, w.init, false);
    return;
  }
  const counter = c.incrementAllNow(w.increment, w.by, w.init);
  for (const [field, most] of Object.entries(w.atMost)) {
    if (Number(counter[field] ?? 0) <= most) continue;
    const before = Object.fromEntries(
      Object.entries(counter).map(([k, v]) => [k, k in w.by ? Number(v) - w.by[k]! : v]),
    );
    throw new BudgetExceededError(before, w.by);
  }
}
