import { type Collection as MongoCollection, MongoClient, MongoServerError } from "mongodb";
import { type Collection, type Doc, DuplicateKeyError, type Filter, type FindOptions, type Index, type Store, StoreUnavailableError, checkField, maxListing } from "./port.ts";

const duplicateKey = 11000;

// Server errors (a bad query, a duplicate key) are bugs or typed outcomes; everything else the driver
// throws (selection timeouts, network errors, a closed pool) means the database is out of reach.
async function guard<R>(op: () => Promise<R>): Promise<R> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof MongoServerError) {
      if (err.code === duplicateKey) throw new DuplicateKeyError(String(err.message));
      throw err;
    }
    throw new StoreUnavailableError(err);
  }
}

const clean = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

class MongoDocs<T extends Doc> implements Collection<T> {
  constructor(private readonly c: MongoCollection<Doc>) {}

  get(id: string) {
    return guard(() => this.c.findOne({ _id: id }) as Promise<T | null>);
  }

  findOne(filter: Filter<T>) {
    return guard(() => this.c.findOne(clean(filter)) as Promise<T | null>);
  }

  find(filter: Filter<T>, options: FindOptions<T> = {}) {
    return guard(() => {
      let cursor = this.c.find(clean(filter));
      if (options.sort) cursor = cursor.sort({ [checkField(options.sort.field)]: options.sort.direction });
      return cursor.limit(Math.min(options.limit ?? maxListing, maxListing)).toArray() as Promise<T[]>;
    });
  }

  count(filter: Filter<T>) {
    return guard(() => this.c.countDocuments(clean(filter)));
  }

  async insert(doc: T) {
    await guard(() => this.c.insertOne(clean(doc) as Doc));
  }

  update(filter: Filter<T>, changes: Partial<T>) {
    return guard(() => this.c.findOneAndUpdate(clean(filter), { $set: clean(changes) }, { returnDocument: "after" }) as Promise<T | null>);
  }

  updateMany(filter: Filter<T>, changes: Partial<T>) {
    return guard(async () => (await this.c.updateMany(clean(filter), { $set: clean(changes) })).modifiedCount);
  }

  delete(filter: Filter<T>) {
    return guard(async () => (await this.c.deleteMany(clean(filter))).deletedCount);
  }
}

/**
 * MongoDB store for the distributed deployment: majority, journaled writes, so an acknowledged write
 * survives the loss of the primary. Works against MongoDB and FerretDB 1.x.
 */
export async function createMongoStore(url: string, dbName: string): Promise<Store> {
  const client = new MongoClient(url, {
    writeConcern: { w: "majority", journal: true },
    serverSelectionTimeoutMS: 3_000,
  });
  await guard(() => client.connect());
  const db = client.db(dbName);
  return {
    async collection<T extends Doc>(name: string, indexes: Index[] = []) {
      const c = db.collection<Doc>(checkField(name));
      for (const index of indexes) {
        const keys = Object.fromEntries(index.fields.map((f) => [checkField(f), 1 as const]));
        await guard(() => c.createIndex(keys, { name: index.name, unique: index.unique ?? false }));
      }
      return new MongoDocs<T>(c);
    },
    async ping() {
      await guard(() => db.command({ ping: 1 }));
    },
    async close() {
      await client.close();
    },
  };
}
