import type { JsonObject } from "./generated/schemas.ts";
import type { StorageAdapter } from "./storage/adapter.ts";

/** A local save: one entry of a record's ring (README, Policy flags: maxQueuedLocalSnapshots). */
export interface Snapshot<T = JsonObject> {
  seq: number;
  data: T;
  slotInfo?: JsonObject;
  /** When it was saved, in ms on the server's clock as the device estimates it (README, Conflicts). */
  savedAt: number;
  /** The id of the request another tab handed this save over with: a request sent again is not saved twice. */
  tab?: string;
}

/** The write being sent: kept with its Idempotency-Key so a retry after a crash is the same request. */
export interface Inflight {
  key: string;
  /** The newest snapshot it carries. */
  seq: number;
  /** null: the slot is not on the server yet (created with route 12). */
  baseVersion: number | null;
  data: JsonObject;
  slotInfo?: JsonObject;
}

/** Everything the device knows about one slot, or about the account data (`target` "accountData"). */
export interface LocalRecord {
  target: string;
  /** The server state the newest local change was made on; null before the first sync. */
  base: { version: number; data: JsonObject; slotInfo?: JsonObject; updatedAt: number } | null;
  snapshots: Snapshot[];
  /** Newest snapshot the server has. */
  syncedSeq: number;
  nextSeq: number;
  inflight?: Inflight;
  /**
   * Idempotency-Keys given to queued saves in one write before a replay sends them (replay "all"), by seq.
   * A write whose key is stored needs no write of its own before it is sent: after a crash its body
   * follows again from the stored state, and the server answers the same key with its first answer.
   */
  queuedKeys?: Record<number, string>;
}

export const accountTarget = "accountData";

export const isDirty = (r: LocalRecord) => (r.snapshots.at(-1)?.seq ?? 0) > r.syncedSeq;
/** What the game reads: its newest save if the server does not have it yet, else the server state. */
export const currentOf = (r: LocalRecord): Snapshot | undefined =>
  isDirty(r) || !r.base
    ? r.snapshots.at(-1)
    : { seq: r.syncedSeq, data: r.base.data, slotInfo: r.base.slotInfo, savedAt: r.base.updatedAt };

/** A data object stored under a snapshot's own key, named by its seq. */
type Ref = { dataSeq: number };
/** How a record is stored: its snapshots' data under keys of their own, so a save writes one more, not all. */
interface StoredRecord {
  target: string;
  syncedSeq: number;
  nextSeq: number;
  snapshots: (Omit<Snapshot, "data"> & { data?: JsonObject })[];
  base: (Omit<NonNullable<LocalRecord["base"]>, "data"> & ({ data: JsonObject } | Ref)) | null;
  inflight?: Omit<Inflight, "data"> & ({ data: JsonObject } | Ref);
  queuedKeys?: Record<number, string>;
}

/**
 * The device's copy of every record, on a storage adapter. The puts of one record run one after
 * another, each resolving when the adapter says it is durable: first the data of new snapshots, then the
 * record that names them, then the removal of snapshots the ring dropped. A crash in between leaves a
 * record whose snapshots all exist.
 */
export class LocalStore {
  private readonly records = new Map<string, LocalRecord>();
  private readonly chains = new Map<string, Promise<void>>();
  /** Snapshot seqs whose data is on the storage, per record. */
  private readonly written = new Map<string, Set<number>>();
  constructor(
    readonly storage: StorageAdapter,
    readonly namespace: string,
  ) {}

  private key = (name: string) => `${this.namespace}:${name}`;
  private snapKey = (target: string, seq: number) => `snap:${target}:${seq}`;

  /** Called once a record (or a value, as `$name`) is durable: the syncing tab tells the others (README, Several tabs). */
  onWrite: (target: string) => void = () => {};

  async load(): Promise<void> {
    for (const k of await this.storage.keys(this.key("record:"))) await this.loadRecord(k);
  }
  /** Reads one record again, as another tab wrote it. */
  async reload(target: string): Promise<void> {
    if (!(await this.loadRecord(this.key(`record:${target}`)))) this.records.delete(target);
  }

  private async loadRecord(k: string): Promise<boolean> {
    const text = await this.storage.get(k);
    if (!text) return false;
    const stored = JSON.parse(text) as StoredRecord;
    const snapshots: Snapshot[] = [];
    for (const s of stored.snapshots) {
      const data =
        s.data ??
        (JSON.parse(
          (await this.storage.get(this.key(this.snapKey(stored.target, s.seq)))) ?? "null",
        ) as JsonObject | null);
      if (data) snapshots.push({ ...s, data });
    }
    // Shared objects again, as in memory: a base or a write that is a snapshot's data refers to it.
    const dataOf = (v: { data: JsonObject } | Ref) =>
      "dataSeq" in v ? (snapshots.find((s) => s.seq === v.dataSeq)?.data ?? {}) : v.data;
    const { base, inflight } = stored;
    const record: LocalRecord = {
      target: stored.target,
      syncedSeq: stored.syncedSeq,
      nextSeq: stored.nextSeq,
      snapshots,
      base: base ? { ...withoutRef(base), data: dataOf(base) } : null,
      ...(inflight ? { inflight: { ...withoutRef(inflight), data: dataOf(inflight) } } : {}),
      ...(stored.queuedKeys ? { queuedKeys: stored.queuedKeys } : {}),
    };
    this.records.set(record.target, record);
    this.written.set(record.target, new Set(stored.snapshots.filter((s) => !s.data).map((s) => s.seq)));
    return true;
  }

  get(target: string): LocalRecord | undefined {
    return this.records.get(target);
  }
  all(): LocalRecord[] {
    return [...this.records.values()];
  }
  getOrCreate(target: string): LocalRecord {
    let r = this.records.get(target);
    if (!r) {
      r = { target, base: null, snapshots: [], syncedSeq: 0, nextSeq: 1 };
      this.records.set(target, r);
    }
    return r;
  }

  /** Persists the record as it is when this put's turn comes. */
  put(record: LocalRecord): Promise<void> {
    this.records.set(record.target, record);
    return this.chain(`put:${record.target}`, async () => {
      const written = this.written.get(record.target) ?? new Set<number>();
      this.written.set(record.target, written);
      for (const s of record.snapshots) {
        if (written.has(s.seq)) continue;
        await this.storage.set(this.key(this.snapKey(record.target, s.seq)), JSON.stringify(s.data));
        written.add(s.seq);
      }
      const ref = <T extends { data: JsonObject }>(v: T) => {
        const seq = record.snapshots.find((s) => s.data === v.data)?.seq;
        return seq === undefined ? v : { ...withoutRef(v), dataSeq: seq };
      };
      const stored: StoredRecord = {
        target: record.target,
        syncedSeq: record.syncedSeq,
        nextSeq: record.nextSeq,
        snapshots: record.snapshots.map(({ data: _, ...s }) => s),
        base: record.base ? ref(record.base) : null,
        ...(record.inflight ? { inflight: ref(record.inflight) } : {}),
        ...(record.queuedKeys ? { queuedKeys: record.queuedKeys } : {}),
      };
      await this.storage.set(this.key(`record:${record.target}`), JSON.stringify(stored));
      const kept = new Set(record.snapshots.map((s) => s.seq));
      for (const seq of [...written]) {
        if (kept.has(seq)) continue;
        await this.storage.remove(this.key(this.snapKey(record.target, seq)));
        written.delete(seq);
      }
      this.onWrite(record.target);
    });
  }

  async forget(target: string): Promise<void> {
    this.records.delete(target);
    await this.chain(`put:${target}`, async () => {
      await this.storage.remove(this.key(`record:${target}`));
      for (const k of await this.storage.keys(this.key(`snap:${target}:`))) await this.storage.remove(k);
      this.written.delete(target);
    });
  }

  async clear(): Promise<void> {
    for (const target of [...this.records.keys()]) await this.forget(target);
  }

  /** Small values beside the records: the session, the cached runtime config. */
  async getValue<T>(name: string): Promise<T | undefined> {
    const text = await this.storage.get(this.key(name));
    return text ? (JSON.parse(text) as T) : undefined;
  }
  setValue(name: string, value: unknown): Promise<void> {
    const write = () =>
      value === undefined
        ? this.storage.remove(this.key(name))
        : this.storage.set(this.key(name), JSON.stringify(value));
    return this.chain(name, async () => {
      await write();
      this.onWrite(`$${name}`);
    });
  }

  private chain(name: string, run: () => Promise<void>): Promise<void> {
    const next = (this.chains.get(name) ?? Promise.resolve()).then(run, run);
    this.chains.set(
      name,
      next.catch(() => {}),
    );
    return next;
  }
}

function withoutRef<T extends object>(v: T): Omit<T, "data" | "dataSeq"> {
  const { data: _, dataSeq: __, ...rest } = v as T & { data?: unknown; dataSeq?: unknown };
  return rest;
}

/** Adds a save to the record's ring, keeping the newest `max` (the oldest double as local undo). */
export function addSnapshot(
  record: LocalRecord,
  data: JsonObject,
  slotInfo: JsonObject | undefined,
  now: number,
  max: number,
): Snapshot {
  const snapshot: Snapshot = { seq: record.nextSeq++, data, ...(slotInfo ? { slotInfo } : {}), savedAt: now };
  record.snapshots.push(snapshot);
  if (record.snapshots.length > max) record.snapshots.splice(0, record.snapshots.length - max);
  return snapshot;
}
