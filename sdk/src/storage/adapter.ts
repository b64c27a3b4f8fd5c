/**
 * Where the SDK keeps saves on the device. Every method is async; `set` resolves only once the value
 * survives a crash of the process (README, Storage adapters).
 */
export interface StorageAdapter {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  remove(key: string): Promise<void>;
  /** Keys starting with `prefix`. */
  keys(prefix: string): Promise<string[]>;
  /**
   * Set when other tabs of the origin see the same storage (IndexedDB, localStorage): their clients then
   * take turns syncing under one Web Lock named after it (README, Several tabs).
   */
  readonly shared?: string;
}

/** React Native's AsyncStorage, localForage, a game engine's key-value store: anything with these. */
export interface AsyncKeyValueStore {
  getItem(key: string): Promise<string | null | undefined>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
  getAllKeys(): Promise<readonly string[]>;
}

export function asyncStorage(store: AsyncKeyValueStore): StorageAdapter {
  return {
    get: async (key) => (await store.getItem(key)) ?? null,
    set: (key, value) => store.setItem(key, value),
    remove: (key) => store.removeItem(key),
    keys: async (prefix) => (await store.getAllKeys()).filter((k) => k.startsWith(prefix)),
  };
}

/** Keeps everything in memory: for tests and for games that want no persistence. */
export function memoryStorage(map = new Map<string, string>()): StorageAdapter {
  return {
    get: async (key) => map.get(key) ?? null,
    set: async (key, value) => void map.set(key, value),
    remove: async (key) => void map.delete(key),
    keys: async (prefix) => [...map.keys()].filter((k) => k.startsWith(prefix)),
  };
}

interface WebStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
  key(index: number): string | null;
  readonly length: number;
}

/** The browser's `localStorage` (synchronous, so durable when `setItem` returns), or any Web Storage. */
export function localStorageAdapter(
  storage: WebStorage = (globalThis as unknown as { localStorage: WebStorage }).localStorage,
): StorageAdapter {
  return {
    shared: "localStorage",
    get: async (key) => storage.getItem(key),
    set: async (key, value) => storage.setItem(key, value),
    remove: async (key) => storage.removeItem(key),
    keys: async (prefix) => {
      const out: string[] = [];
      for (let i = 0; i < storage.length; i++) {
        const k = storage.key(i);
        if (k?.startsWith(prefix)) out.push(k);
      }
      return out;
    },
  };
}
