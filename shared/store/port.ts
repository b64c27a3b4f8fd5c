/**
 * The store port: the few document operations the services need, no more. Documents are flat:
 * scalar fields only (free-form payloads are stored as serialized JSON strings), so both adapters
 * store them the same way. Adapters: `sqlite.ts` and `mongo.ts`; both must pass
 * `tests/contract/store.test.ts`.
 */
export type Scalar = string | number | boolean | null;
export type Doc = { _id: string } & { [field: string]: Scalar | undefined };
/** `_id` by its beginning: every id that starts with `startsWith`, a range of the ids' own index. */
export type IdPrefix = { startsWith: string };
/** Equality on every named field (`null` matches a missing or null field); `_id` also by its beginning. */
export type Filter<T extends Doc> = { [K in keyof T]?: K extends "_id" ? string | IdPrefix : T[K] | null };

/**
 * The ids that start with `prefix`, as a range: at least `prefix` and below `end`, the prefix with its
 * last character one up. That character must be ASCII, where UTF-8 and UTF-16 order strings alike.
 */
export function idRange({ startsWith: prefix }: IdPrefix): { start: string; end: string } {
  const last = prefix.charCodeAt(prefix.length - 1);
  if (!(last < 0x7f)) throw new Error(`an id prefix must end in an ASCII character: ${prefix}`);
  return { start: prefix, end: prefix.slice(0, -1) + String.fromCharCode(last + 1) };
}

export interface Index {
  name: string;
  fields: string[];
  unique?: boolean;
  /** An index the collection no longer has: removed where an earlier version made it, never made. */
  dropped?: boolean;
}

export interface FindOptions<T extends Doc> {
  sort?: { field: keyof T & string; direction: 1 | -1 };
  /** Without a limit a listing is complete: list only what an API rule bounds, or page. */
  limit?: number;
  skip?: number;
}

/**
 * A write that rides along with an insert or a conditional update (`then`): on SQLite in the same
 * transaction, so all of them commit together or none does; on MongoDB, which has no multi-document
 * transactions without a replica set's sessions, right after it, in order. A crash between leaves the
 * first write without its followers, never a follower without its first write.
 */
// `Doc`: a follower may go to any collection of the same store.
export type Write =
  | { insert: Doc; into: Collection<Doc> }
  /**
   * With `ifDeleted`: those writes too, only when this delete removed a document (a count that must not go
   * twice); with `ifNoneDeleted`, those instead when it removed none. A count that moves either way is then
   * one write, not two of the same document.
   */
  | {
      delete: Filter<Doc>;
      from: Collection<Doc>;
      ifDeleted?: Write | readonly Write[];
      ifNoneDeleted?: readonly Write[];
    }
  /**
   * `increment` of document `increment`, each field by its number: counters that move in the commit of
   * the write they count. With `atMost`, a budget: when a named field would end above its number, the
   * whole write (first write and every follower) rejects with BudgetExceededError and nothing is
   * written. On SQLite that is checked in the write's commit. On MongoDB it is a conditional increment
   * in a round trip of its own: before an update, given back when the update does not happen (a crash
   * between leaves the counter high by it); right after an insert, which it deletes again when there
   * is no room (a crash between leaves the insert uncounted).
   */
  | {
      increment: string;
      by: Record<string, number>;
      init: object;
      in: Collection<Doc>;
      atMost?: Record<string, number>;
    };

/** What a delete's followers are once it is known whether it removed a document. */
export const afterDelete = (
  w: { ifDeleted?: Write | readonly Write[]; ifNoneDeleted?: readonly Write[] },
  removed: boolean,
): readonly Write[] => {
  if (!removed) return w.ifNoneDeleted ?? [];
  return w.ifDeleted === undefined ? [] : "length" in w.ifDeleted ? w.ifDeleted : [w.ifDeleted as Write];
};

/**
 * A counter an insert is admitted under: `field` of document `increment` in `in` goes up by one, and the
 * insert is written only while the counter is then at most `atMost`; past it the insert rejects with
 * QuotaExceededError and writes nothing (the count stays: a full window stays full). The store's atomic
 * add numbers concurrent inserts, so of N exactly min(N, room) are written. On SQLite the count and the
 * insert (with its followers) are one commit, and an insert that fails is not counted; on MongoDB the
 * count is written first, in its own round trip, as `increment` does.
 */
export type Quota = { increment: string; field: string; atMost: number; init: object; in: Collection<Doc> };

export interface Collection<T extends Doc> {
  get(id: string): Promise<T | null>;
  /** The first match in `sort` order (any match without one). */
  findOne(filter: Filter<T>, sort?: FindOptions<T>["sort"]): Promise<T | null>;
  /** Every match, in `sort` order; `limit` and `skip` page through them. Never cut off silently. */
  find(filter: Filter<T>, options?: FindOptions<T>): Promise<T[]>;
  /** How many match; with `upTo`, counting stops there (a limit check needs no more). */
  count(filter: Filter<T>, upTo?: number): Promise<number>;
  /**
   * Rejects with DuplicateKeyError when `_id` or a unique index is taken; then writes `then` (see Write).
   * With a `quota`, only while it has room (see Quota).
   */
  insert(doc: T, then?: readonly Write[], quota?: Quota): Promise<void>;
  /**
   * Atomically sets `changes` on the one document matching `filter` and returns it as updated, or
   * null when none matches: a version in the filter makes this a conditional write. Fields left
   * undefined in `changes` are not touched. When it matched, `then` is written too (see Write).
   */
  update(filter: Filter<T>, changes: Partial<T>, then?: readonly Write[]): Promise<T | null>;
  /**
   * Atomically adds `by` to the number in `field` of document `id` and returns the document as
   * updated; a missing document is created from `init` with `field` = `by`. Concurrent increments
   * of one document all count: no read-then-write a second writer could slip between.
   */
  increment<F extends keyof T & string>(id: string, field: F, by: number, init: Omit<T, "_id" | F>): Promise<T>;
  /** Sets `changes` on every match; returns how many matched. */
  updateMany(filter: Filter<T>, changes: Partial<T>): Promise<number>;
  delete(filter: Filter<T>): Promise<number>;
}

/** What an adapter may make use of about a collection's documents; each reads and writes the same either way. */
export interface CollectionOptions {
  /**
   * Fields an adapter may keep apart from the rest of the document: large JSON texts (a slot's data)
   * and counters moved by `increment` (an account's stored bytes).
   */
  apart?: readonly string[];
  /**
   * Documents written once, then only deleted or given a mark that need not outlive a delete of the
   * same document (restore points: the pruner's expiry). A delete by id need not wait for an update.
   */
  writeOnce?: boolean;
}

export interface Store {
  /** Opens a collection, creating it and its indexes when missing. */
  collection<T extends Doc>(name: string, indexes?: Index[], options?: CollectionOptions): Promise<Collection<T>>;
  /** Throws StoreUnavailableError when the backing database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class DuplicateKeyError extends Error {
  constructor(readonly index: string) {
    super(`duplicate key on ${index}`);
    this.name = "DuplicateKeyError";
  }
}

/**
 * MongoDB only: the first write of an insert or update with `then` stands, and a follower failed.
 * `updated` is what the update returned.
 */
export class FollowerFailedError extends Error {
  constructor(
    readonly updated: unknown,
    cause: unknown,
  ) {
    super("a write after the first one failed", { cause });
    this.name = "FollowerFailedError";
  }
}

/** An insert's quota had no room: nothing was written. `count` is the counter after this attempt. */
export class QuotaExceededError extends Error {
  constructor(readonly count: number) {
    super(`quota exceeded (${count})`);
    this.name = "QuotaExceededError";
  }
}

/** A bounded increment (Write, `atMost`) had no room: nothing was written. `counter` is the counter before it. */
export class BudgetExceededError extends Error {
  constructor(
    readonly counter: Record<string, unknown>,
    readonly by: Record<string, number>,
  ) {
    super("budget exceeded");
    this.name = "BudgetExceededError";
  }
}

/** The database is down or unreachable; callers answer 503. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super("store unavailable", { cause });
    this.name = "StoreUnavailableError";
  }
}

const fieldName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Field names come from code, but the SQLite adapter splices them into SQL: refuse anything odd. */
export function checkField(name: string): string {
  if (!fieldName.test(name)) throw new Error(`invalid field name: ${name}`);
  return name;
}
