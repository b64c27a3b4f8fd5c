import { type Document, MongoClient, type Collection as MongoCollection, MongoServerError } from "mongodb";
import { type Bounded, reserveBounded } from "./mongo-budget.ts";
import { type Lease, withLease } from "./mongo-lease.ts";
import { recycleWhenStuck } from "./mongo-recycle.ts";
import { replicaSetMismatch } from "./mongo-replica-set.ts";
import {
  afterDelete,
  type Collection,
  type CollectionOptions,
  checkField,
  type Doc,
  DuplicateKeyError,
  type Filter,
  type FindOptions,
  FollowerFailedError,
  type IdPrefix,
  type Index,
  idRange,
  type Quota,
  QuotaExceededError,
  type Store,
  StoreUnavailableError,
  type Write,
} from "./port.ts";

const duplicateKey = 11000;
// FerretDB 1.x answers a unique violation inside findAndModify with code 1 and its backend's message.
const duplicateMessage = /UNIQUE constraint failed|duplicate key value violates unique constraint/;
const isDuplicate = (err: MongoServerError) => err.code === duplicateKey || duplicateMessage.test(err.message);

// FerretDB answers with a server error when its own backend is out of reach (PostgreSQL down, or out of
// connections): for the caller that is the store being unavailable, not a bug.
const backendUnreachable = /failed to connect to|too many clients already|SQLSTATE (53300|57P0[1-3]|08\d\d\d)/;

/**
 * Server errors (a bad query, a duplicate key) are bugs or typed outcomes; everything else the driver
 * throws (selection timeouts, network errors, a closed pool), and a wire server's report that its
 * backend is unreachable, means the database is out of reach.
 */
export function classifyStoreError(err: unknown): unknown {
  if (!(err instanceof MongoServerError)) return new StoreUnavailableError(err);
  if (isDuplicate(err)) return new DuplicateKeyError(String(err.message));
  if (backendUnreachable.test(err.message)) return new StoreUnavailableError(err);
  return err;
}

async function guard<R>(op: () => Promise<R>): Promise<R> {
  try {
    return await op();
  } catch (err) {
    throw classifyStoreError(err);
  }
}

const clean = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** A filter as MongoDB takes it: an `_id` prefix becomes a range of the `_id` index. */
function query<T extends Doc>(filter: Filter<T>): Document {
  const q: Document = clean(filter);
  if (typeof q._id === "object" && q._id !== null) {
    const { start, end } = idRange(q._id as IdPrefix);
    q._id = { $gte: start, $lt: end };
  }
  return q;
}

/** The one document a filter names by its `_id`, if it does. */
const namedId = <T extends Doc>(filter: Filter<T>) => (typeof filter._id === "string" ? filter._id : undefined);

/** The followers of a first write, in order (port.ts, Write): two round trips at most for a sync. */
async function follow(then: readonly Write[] | undefined, updated: unknown): Promise<void> {
  if (!then) return;
  try {
    for (const w of then) await followOne(w);
  } catch (err) {
    throw new FollowerFailedError(updated, err);
  }
}

async function followOne(w: Write): Promise<void> {
  if ("insert" in w) await w.into.insert(w.insert);
  else if (!("delete" in w)) await (w.in as unknown as MongoDocs<Doc>).incrementAll(w.increment, w.by, w.init);
  else for (const f of afterDelete(w, (await w.from.delete(w.delete)) > 0)) await followOne(f);
}

class MongoDocs<T extends Doc> implements Collection<T> {
  constructor(
    private readonly c: MongoCollection<Doc>,
    /** Set on servers that need a lease to make a conditional update atomic. */
    private readonly leases?: MongoCollection<Lease>,
    private readonly writeOnce = false,
  ) {}

  get(id: string) {
    return guard(() => this.c.findOne({ _id: id }) as Promise<T | null>);
  }

  async findOne(filter: Filter<T>, sort?: FindOptions<T>["sort"]): Promise<T | null> {
    return (await this.find(filter, { sort, limit: 1 }))[0] ?? null;
  }

  async find(filter: Filter<T>, options: FindOptions<T> = {}): Promise<T[]> {
    const q = query(filter);
    return guard(() => {
      let cursor = this.c.find(q);
      // _id breaks ties, so pages of one listing never overlap or skip a row.
      if (options.sort)
        cursor = cursor.sort({ [checkField(options.sort.field)]: options.sort.direction, _id: options.sort.direction });
      if (options.skip) cursor = cursor.skip(options.skip);
      if (options.limit !== undefined) cursor = cursor.limit(options.limit);
      return cursor.toArray() as Promise<T[]>;
    });
  }

  async count(filter: Filter<T>, upTo?: number) {
    const q = query(filter);
    return guard(() => this.c.countDocuments(q, upTo === undefined ? {} : { limit: upTo }));
  }

  async insert(doc: T, then?: readonly Write[], quota?: Quota) {
    // Counted first, in a round trip of its own: no transaction joins it to the insert (port.ts, Quota).
    if (quota) {
      const counter = await (quota.in as unknown as MongoDocs<Doc>).incrementAll(
        quota.increment,
        { [quota.field]: 1 },
        quota.init,
      );
      const count = Number(counter[quota.field] ?? 0);
      if (count > quota.atMost) throw new QuotaExceededError(count);
    }
    await guard(() => this.c.insertOne(clean(doc) as Doc));
    // Bounded followers are counted right after the insert, before the others, and one without room
    // deletes it again (port.ts, Write): a duplicate, the usual loser of a race, never touches them.
    const { rest } = await reserveBounded(then).catch(async (err) => {
      await guard(() => this.c.deleteOne({ _id: doc._id }));
      throw err;
    });
    await follow(rest, undefined);
  }

  async update(filter: Filter<T>, changes: Partial<T>, then?: readonly Write[]) {
    const { rest, giveBack } = await reserveBounded(then);
    const updated = await this.updateOne(filter, changes).catch(async (err) => {
      await giveBack();
      throw err;
    });
    if (updated) await follow(rest, updated);
    else await giveBack();
    return updated;
  }

  private async updateOne(filter: Filter<T>, changes: Partial<T>) {
    query(filter); // a filter the store cannot take is the caller's error, not an outage
    const apply = (f: Filter<T>) =>
      this.c.findOneAndUpdate(query(f), { $set: clean(changes) }, { returnDocument: "after" }) as Promise<T | null>;
    const leases = this.leases;
    if (!leases) return guard(() => apply(filter));
    return guard(async () => {
      // The lease is per document: a filter that names it needs no read to find which one. A caller
      // that read it just before (a versioned round) would read it twice; a stale filter then finds
      // no match under the lease and answers null all the same.
      const id = namedId(filter) ?? (await this.c.findOne(query(filter)))?._id;
      if (id === undefined || id === null) return null;
      const target = { ...filter, _id: id };
      const matches = async () => (await this.c.findOne(query(target))) !== null;
      return withLease(leases, `${this.c.collectionName}:${id}`, () => apply(target), matches);
    });
  }

  increment<F extends keyof T & string>(id: string, field: F, by: number, init: Omit<T, "_id" | F>): Promise<T> {
    return this.incrementAll(id, { [field]: by }, init);
  }

  /** `increment` of several fields in one operation (a follower's counters). */
  incrementAll(id: string, by: Record<string, number>, init: object): Promise<T> {
    const seed: Record<string, unknown> = clean(init);
    for (const field of Object.keys(by)) delete seed[field];
    delete seed._id;
    const inc = Object.fromEntries(Object.entries(by).map(([field, n]) => [checkField(field), n]));
    // An empty $setOnInsert is refused by MongoDB before 5.0.
    const change: Document = { $inc: inc, ...(Object.keys(seed).length ? { $setOnInsert: seed } : {}) };
    const apply = async () =>
      (await this.c.findOneAndUpdate({ _id: id }, change, { upsert: true, returnDocument: "after" })) as unknown as T;
    const leases = this.leases;
    const once = leases ? async () => (await withLease(leases, `${this.c.collectionName}:${id}`, apply))! : apply;
    return guard(async () => {
      // Two upserts of a missing document can both try the insert: the loser retries, and finds it.
      for (let attempt = 1; ; attempt++) {
        try {
          return await once();
        } catch (err) {
          if (attempt < 3 && err instanceof MongoServerError && isDuplicate(err)) continue;
          throw err;
        }
      }
    });
  }

  /**
   * `incrementAll` only while each field of `atMost` stays at most its number; false (nothing written)
   * otherwise. On FerretDB under the document's lease, as every increment of it.
   */
  incrementIfWithin(w: Bounded): Promise<Document | null> {
    const fields = (f: string) => checkField(f);
    const room = Object.fromEntries(
      Object.entries(w.atMost).map(([f, most]) => [fields(f), { $lte: most - (w.by[f] ?? 0) }]),
    );
    const inc = Object.fromEntries(Object.entries(w.by).map(([f, n]) => [fields(f), n]));
    const change: Document = { $inc: inc };
    const apply = () => this.c.findOneAndUpdate({ _id: w.increment, ...room }, change, { returnDocument: "after" });
    const leases = this.leases;
    return guard(() => (leases ? withLease(leases, `${this.c.collectionName}:${w.increment}`, apply) : apply()));
  }

  async updateMany(filter: Filter<T>, changes: Partial<T>) {
    const q = query(filter);
    return guard(async () => (await this.c.updateMany(q, { $set: clean(changes) })).modifiedCount);
  }

  async delete(filter: Filter<T>) {
    const q = query(filter);
    const remove = async () => (await this.c.deleteMany(q)).deletedCount;
    const leases = this.leases;
    const id = namedId(filter);
    // A conditional update there reads, then writes by `_id`, under the document's lease: a delete of
    // that document between the two would remove the version the update is writing, not the one it named.
    // A write-once document's update may be lost to its delete (FerretDB's write by `_id` then finds no row).
    if (!leases || id === undefined || this.writeOnce) return guard(remove);
    return guard(async () => (await withLease(leases, `${this.c.collectionName}:${id}`, remove))!);
  }
}

/**
 * MongoDB store for the distributed deployment: majority, journaled writes, so an acknowledged write
 * survives the loss of the primary. Works against MongoDB and FerretDB 1.x; on FerretDB, conditional
 * updates and increments take a per-document lease (see mongo-lease.ts).
 */
export async function createMongoStore(url: string, dbName: string): Promise<Store> {
  const client = new MongoClient(url, {
    writeConcern: { w: "majority", journal: true },
    serverSelectionTimeoutMS: 3_000,
    // A connection opened while the server restarts can hang in its handshake; the driver's default
    // (30 s) would keep the monitor on it, and every request 503, long after the server is back.
    connectTimeoutMS: 3_000,
  });
  // A failed connect keeps its pool's timers: close it, the caller may retry (shared/process/open.ts).
  await guard(() => client.connect()).catch(async (err) => {
    await client.close().catch(() => {});
    throw replicaSetMismatch(url, err) ?? err;
  });
  const db = client.db(dbName);
  const buildInfo = await guard(() => db.admin().command({ buildInfo: 1 }));
  const watchdog = recycleWhenStuck(client);
  const leases = "ferretdbVersion" in buildInfo ? db.collection<Lease>("_leases") : undefined;
  return {
    async collection<T extends Doc>(name: string, indexes: Index[] = [], options: CollectionOptions = {}) {
      const c = db.collection<Doc>(checkField(name));
      const dropped = indexes.filter((i) => i.dropped).map((i) => i.name);
      if (dropped.length > 0) {
        // A collection not made yet has no index to drop (listIndexes then fails).
        const present = await guard(() => c.listIndexes().toArray()).catch(() => []);
        for (const index of present)
          if (dropped.includes(index.name)) await guard(() => c.dropIndex(String(index.name)));
      }
      for (const index of indexes) {
        if (index.dropped) continue;
        const keys = Object.fromEntries(index.fields.map((f) => [checkField(f), 1 as const]));
        await guard(() => c.createIndex(keys, { name: index.name, unique: index.unique ?? false }));
      }
      return new MongoDocs<T>(c, leases, options.writeOnce);
    },
    async ping() {
      await guard(() => db.command({ ping: 1 }));
    },
    async close() {
      await watchdog.stop();
      await client.close();
    },
  };
}
