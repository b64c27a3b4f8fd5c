import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { openRepo, type SlotDoc, type SnapshotDoc } from "../../services/accounts/repo.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";

/**
 * The raw floors the service is measured against, each in a process of its own so its CPU can be read
 * from /proc like a server's: `bun tests/bench/raw.ts <kind> <seconds> [<mongo url> <db>]` prints
 * `{ ops, seconds, cpuSeconds }` as JSON. Every loop does what the service's store does for one operation, and
 * nothing else: no HTTP, no validation, no bus.
 */
const [kind, secondsArg, mongoUrl, mongoDb] = process.argv.slice(2);
const seconds = Number(secondsArg);
const payload = JSON.stringify({ slotInfo: {}, data: { blob: "x".repeat(1000) } });
const bigPayload = JSON.stringify({ slotInfo: {}, data: { blob: "x".repeat(10_240) } });

function sqlite() {
  const dir = mkdtempSync(join(tmpdir(), "savepoint-raw-"));
  const db = new Database(join(dir, "raw.sqlite"), { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  db.exec("CREATE TABLE slots (_id TEXT PRIMARY KEY, doc TEXT NOT NULL)");
  db.exec("CREATE TABLE snapshots (_id TEXT PRIMARY KEY, doc TEXT NOT NULL)");
  db.exec("CREATE TABLE accounts (_id TEXT PRIMARY KEY, doc TEXT NOT NULL)");
  db.exec("CREATE TABLE sessions (_id TEXT PRIMARY KEY, doc TEXT NOT NULL)");
  db.exec("CREATE TABLE hits (_id TEXT PRIMARY KEY, doc TEXT NOT NULL)");
  return { db, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `op` until `seconds` pass; `op` returns how many operations it did. */
function loop(op: (i: number) => number): number {
  const end = performance.now() + seconds * 1000;
  let ops = 0;
  for (let i = 0; performance.now() < end; i++) ops += op(i);
  return ops;
}

async function asyncLoop(concurrency: number, op: (worker: number, i: number) => Promise<void>): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let ops = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let i = 0; performance.now() < end; i++) {
        await op(w, i);
        ops++;
      }
    }),
  );
  return ops;
}

const slotDoc = (id: string, version: number, body: string) => JSON.stringify({ _id: id, version, payload: body });

/** G3e: 16 slots at version 1, and the conditional UPDATE that moves slot `s` one version on. */
function sixteenSlots(db: Database): (s: number) => void {
  const insert = db.prepare("INSERT INTO slots (_id, doc) VALUES (?, ?)");
  for (let s = 0; s < 16; s++) insert.run(`s${s}`, slotDoc(`s${s}`, 1, payload));
  const update = db.prepare("UPDATE slots SET doc = ? WHERE _id = ? AND json_extract(doc, '$.version') = ?");
  const versions: number[] = new Array(16).fill(1);
  return (s) => {
    update.run(slotDoc(`s${s}`, versions[s]! + 1, payload), `s${s}`, versions[s]!);
    versions[s]!++;
  };
}

/**
 * G6: the statements of one accepted sync (read the slot, conditional update, its snapshot and the
 * trim of the oldest), 16 syncs to a commit as group commit does under 16 clients. `slot` and
 * `snapshot` give the stored documents of slot `s` at a version.
 */
function syncStatements(
  db: Database,
  slot: (s: number, version: number) => string,
  snapshot: (s: number, seq: number) => string,
  /** The values of the restore points' indexed columns (shared/store/sqlite.ts), where the table has them. */
  snapshotColumns?: { names: string[]; values: (s: number, seq: number) => (string | number)[] },
): number {
  const insert = db.prepare("INSERT INTO slots (_id, doc) VALUES (?, ?)");
  for (let s = 0; s < 16; s++) insert.run(`s${s}`, slot(s, 1));
  const read = db.prepare<{ doc: string }, [string]>("SELECT doc FROM slots WHERE _id = ?");
  const update = db.prepare("UPDATE slots SET doc = ? WHERE _id = ? AND json_extract(doc, '$.version') = ?");
  const names = snapshotColumns?.names ?? [];
  const keep = db.prepare(
    `INSERT INTO snapshots (_id, doc${names.map((n) => `, "ix_${n}"`).join("")}) VALUES (?, ?${", ?".repeat(names.length)})`,
  );
  const trim = db.prepare("DELETE FROM snapshots WHERE _id = ?");
  const batch = db.transaction(() => {
    for (let s = 0; s < 16; s++) {
      const { version } = JSON.parse(read.get(`s${s}`)!.doc) as { version: number };
      update.run(slot(s, version + 1), `s${s}`, version);
      keep.run(`s${s}:${version + 1}`, snapshot(s, version + 1), ...(snapshotColumns?.values(s, version + 1) ?? []));
      trim.run(`s${s}:${version - 99}`);
    }
  });
  return loop(() => {
    batch.immediate();
    return 16;
  });
}

const kinds: Record<string, () => Promise<number>> = {
  // G3e: one conditional UPDATE per commit, 16 slots in turn, as a naive store does.
  async "sqlite-update"() {
    const { db, cleanup } = sqlite();
    const update = sixteenSlots(db);
    const ops = loop((i) => {
      update(i % 16);
      return 1;
    });
    cleanup();
    return ops;
  },
  // G3e: the same updates, 16 to a transaction: what group commit can reach at best.
  async "sqlite-group"() {
    const { db, cleanup } = sqlite();
    const update = sixteenSlots(db);
    const batch = db.transaction(() => {
      for (let s = 0; s < 16; s++) update(s);
    });
    const ops = loop(() => {
      batch.immediate();
      return 16;
    });
    cleanup();
    return ops;
  },
  // G6 on bare (_id, doc) tables with three-field documents.
  async "sqlite-sync-statements"() {
    const { db, cleanup } = sqlite();
    const ops = syncStatements(
      db,
      (s, version) => slotDoc(`s${s}`, version, payload),
      () => payload,
    );
    cleanup();
    return ops;
  },
  // G6 on the accounts service's own schema: the same statements with documents of the service's
  // shape, in tables (and indexed columns) made by the service's own repo, so index upkeep counts.
  async "sqlite-sync-statements-schema"() {
    const dir = mkdtempSync(join(tmpdir(), "savepoint-raw-"));
    const file = join(dir, "accounts.sqlite");
    const store = createSqliteStore(file);
    await openRepo(store);
    await store.close();
    const db = new Database(file, { strict: true });
    db.exec("PRAGMA synchronous = FULL");
    const at = new Date().toISOString();
    const data = JSON.stringify({ blob: "x".repeat(1000) });
    const slot = (s: number, version: number): SlotDoc => ({
      _id: `s${s}`,
      accountId: `acc_${s}`,
      envId: "prj_bench:stage",
      slotId: "main",
      activeKey: `acc_${s}:main`,
      seatKey: `acc_${s}:${s}`,
      status: "active",
      slotInfo: "{}",
      data,
      version,
      createdAt: at,
      updatedAt: at,
      lastSyncAt: at,
      lastSnapshotAt: at,
      snapshotSeq: version,
    });
    const snapshot = (s: number, seq: number): SnapshotDoc => ({
      _id: `s${s}:${seq}`,
      ownerId: `s${s}`,
      accountId: `acc_${s}`,
      seq,
      version: seq,
      payload,
      createdAt: at,
      plan: "self_hosted",
      expiresAt: at,
      expiresDay: at.slice(0, 10),
    });
    // The columns the service's store keeps its indexed fields in, filled as its insert fills them.
    const columns = db
      .query<{ name: string }, []>("PRAGMA table_info(snapshots)")
      .all()
      .filter((c) => c.name.startsWith("ix_"))
      .map((c) => c.name.slice(3));
    const ops = syncStatements(
      db,
      (s, version) => JSON.stringify(slot(s, version)),
      (s, seq) => JSON.stringify(snapshot(s, seq)),
      {
        names: columns,
        values: (s, seq) => columns.map((c) => (snapshot(s, seq) as unknown as Record<string, string | number>)[c]!),
      },
    );
    db.close();
    rmSync(dir, { recursive: true, force: true });
    return ops;
  },
  // G5 (embedded): read a 10 KiB slot by key.
  async "sqlite-select"() {
    const { db, cleanup } = sqlite();
    db.prepare("INSERT INTO slots (_id, doc) VALUES (?, ?)").run("s", slotDoc("s", 1, bigPayload));
    const read = db.prepare<{ doc: string }, [string]>("SELECT doc FROM slots WHERE _id = ?");
    const ops = loop(() => {
      JSON.parse(read.get("s")!.doc);
      return 1;
    });
    cleanup();
    return ops;
  },
  // R1: the commit pattern account creation had before one commit per account: the per-IP counter,
  // the account, its snapshot and its session, each committed on its own.
  async "sqlite-register-before"() {
    const { db, cleanup } = sqlite();
    const hit = db.prepare(
      "INSERT INTO hits (_id, doc) VALUES (?, ?) ON CONFLICT(_id) DO UPDATE SET doc = json_set(doc, '$.n', json_extract(doc, '$.n') + 1)",
    );
    const account = db.prepare("INSERT INTO accounts (_id, doc) VALUES (?, ?)");
    const snapshot = db.prepare("INSERT INTO snapshots (_id, doc) VALUES (?, ?)");
    const session = db.prepare("INSERT INTO sessions (_id, doc) VALUES (?, ?)");
    const ops = loop((i) => {
      hit.run("ip", JSON.stringify({ n: 1 }));
      account.run(`a${i}`, JSON.stringify({ _id: `a${i}`, accountData: "{}", version: 1 }));
      snapshot.run(`a${i}:1`, JSON.stringify({ payload: "{}" }));
      session.run(`t${i}`, JSON.stringify({ accountId: `a${i}` }));
      return 1;
    });
    cleanup();
    return ops;
  },
  // G3: the driver's own conditional update, 16 concurrent slots, against the deployment's server.
  async "mongo-update"() {
    return mongoLoop(false);
  },
  // G3 with the per-document lease FerretDB needs (an insert before and a delete after).
  async "mongo-update-lease"() {
    return mongoLoop(true);
  },
  // G5 (distributed): read a 10 KiB slot by _id.
  async "mongo-find"() {
    const client = await new MongoClient(mongoUrl!).connect();
    const c = client.db(mongoDb).collection<{ _id: string; version: number; payload: string }>("raw_read");
    await c.deleteMany({});
    await c.insertOne({ _id: "s", version: 1, payload: bigPayload });
    const ops = await asyncLoop(16, async () => void (await c.findOne({ _id: "s" })));
    await client.close();
    return ops;
  },
};

async function mongoLoop(lease: boolean): Promise<number> {
  const client = await new MongoClient(mongoUrl!, { writeConcern: { w: "majority", journal: true } }).connect();
  const db = client.db(mongoDb);
  const c = db.collection<{ _id: string; version: number; payload: string }>(lease ? "raw_lease" : "raw_update");
  const leases = db.collection<{ _id: string }>("raw_leases");
  await c.deleteMany({});
  for (let s = 0; s < 16; s++) await c.insertOne({ _id: `s${s}`, version: 1, payload });
  const versions = new Array(16).fill(1);
  const ops = await asyncLoop(16, async (w) => {
    if (lease) await leases.insertOne({ _id: `s${w}` });
    await c.findOneAndUpdate(
      { _id: `s${w}`, version: versions[w] },
      { $set: { version: versions[w] + 1, payload } },
      { returnDocument: "after" },
    );
    if (lease) await leases.deleteOne({ _id: `s${w}` });
    versions[w]++;
  });
  await client.close();
  return ops;
}

const run = kinds[kind!];
if (!run) throw new Error(`unknown raw loop ${kind}; one of ${Object.keys(kinds).join(", ")}`);
const started = performance.now();
const cpuBefore = process.cpuUsage();
const ops = await run();
const cpu = process.cpuUsage(cpuBefore);
console.log(
  JSON.stringify({ ops, seconds: (performance.now() - started) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 }),
);
process.exit(0);
