import type { StorageAdapter } from "./adapter.ts";

// The few IndexedDB shapes used here, declared so the SDK compiles without the DOM library.
interface Req<T> {
  result: T;
  error: unknown;
  onsuccess: (() => void) | null;
  onerror: (() => void) | null;
}
interface Tx {
  objectStore(name: string): Store;
  oncomplete: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
  error: unknown;
}
interface Store {
  get(key: string): Req<unknown>;
  put(value: string, key: string): Req<unknown>;
  delete(key: string): Req<unknown>;
  getAllKeys(): Req<unknown[]>;
}
interface Db {
  transaction(store: string, mode: "readonly" | "readwrite", options?: { durability?: string }): Tx;
  createObjectStore(name: string): unknown;
}
interface Factory {
  open(name: string, version: number): Req<Db> & { onupgradeneeded: (() => void) | null };
}

const done = <T>(r: Req<T>) =>
  new Promise<T>((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });

/**
 * IndexedDB, one object store of strings. Writes use `durability: "strict"` and resolve on the
 * transaction's `complete`, so they are on disk when `save()` returns.
 */
export function indexedDbStorage(
  name = "savepoint",
  factory: Factory = (globalThis as unknown as { indexedDB: Factory }).indexedDB,
): StorageAdapter {
  const storeName = "kv";
  let db: Promise<Db> | undefined;
  const open = () =>
    (db ??= new Promise<Db>((resolve, reject) => {
      const r = factory.open(name, 1);
      r.onupgradeneeded = () => r.result.createObjectStore(storeName);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    }));
  const write = async (run: (s: Store) => void) => {
    const tx = (await open()).transaction(storeName, "readwrite", { durability: "strict" });
    run(tx.objectStore(storeName));
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
      tx.onabort = tx.onerror;
    });
  };
  const read = async <T>(run: (s: Store) => Req<T>) =>
    done(run((await open()).transaction(storeName, "readonly").objectStore(storeName)));
  return {
    shared: `indexedDB:${name}`,
    get: async (key) => ((await read((s) => s.get(key))) as string | undefined) ?? null,
    set: (key, value) => write((s) => s.put(value, key)),
    remove: (key) => write((s) => s.delete(key)),
    keys: async (prefix) =>
      ((await read((s) => s.getAllKeys())) as string[]).filter((k) => typeof k === "string" && k.startsWith(prefix)),
  };
}
