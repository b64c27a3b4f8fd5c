import { describe, expect, test } from "bun:test";
import { fileStorage } from "../../sdk/src/file.ts";
import {
  asyncStorage,
  localStorageAdapter,
  manualClock,
  memoryStorage,
  mergeRules,
  SavepointClient,
  type StorageAdapter,
} from "../../sdk/src/index.ts";
import { tempDir } from "../helpers/infra.ts";

/** A Web Storage with the browser's synchronous interface, backed by a Map (no browser in this runner). */
function webStorage() {
  const map = new Map<string, string>();
  return {
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => void map.set(k, String(v)),
    removeItem: (k: string) => void map.delete(k),
    key: (i: number) => [...map.keys()][i] ?? null,
    get length() {
      return map.size;
    },
  };
}

/** React Native's AsyncStorage shape. */
function asyncKeyValue() {
  const map = new Map<string, string>();
  return {
    getItem: async (k: string) => map.get(k) ?? null,
    setItem: async (k: string, v: string) => void map.set(k, v),
    removeItem: async (k: string) => void map.delete(k),
    getAllKeys: async () => [...map.keys()],
  };
}

const adapters: [string, () => StorageAdapter][] = [
  ["memory", () => memoryStorage()],
  ["file", () => fileStorage(tempDir("sdk-file-storage"))],
  ["localStorage", () => localStorageAdapter(webStorage())],
  ["async key-value store", () => asyncStorage(asyncKeyValue())],
];

// One contract for every storage adapter (README, Storage adapters); IndexedDB runs in the browser suite.
describe("sdk storage adapters", () => {
  for (const [name, make] of adapters) {
    test(`${name}: get, set, remove, keys by prefix; keys with any characters`, async () => {
      const s = make();
      expect(await s.get("a")).toBeNull();
      const odd = "ns:record:slot/../.. ünï ?*";
      await s.set(odd, '{"n":1}');
      await s.set("ns:record:b", "2");
      await s.set("other:x", "3");
      await s.set("ns:record:b", "22");
      expect(await s.get(odd)).toBe('{"n":1}');
      expect(await s.get("ns:record:b")).toBe("22");
      expect((await s.keys("ns:")).sort()).toEqual(["ns:record:b", odd].sort());
      await s.remove("ns:record:b");
      expect(await s.get("ns:record:b")).toBeNull();
      expect(await s.keys("ns:")).toEqual([odd]);
    });
  }

  test("file: a second adapter on the same directory reads what the first wrote (a restarted process)", async () => {
    const dir = tempDir("sdk-file-reopen");
    await fileStorage(dir).set("k", "v");
    expect(await fileStorage(dir).get("k")).toBe("v");
  });
});

describe("sdk local store layout", () => {
  test("a save writes its own data once, not the whole ring again; a restart reads every snapshot back", async () => {
    const dir = tempDir("sdk-layout");
    let bytes = 0;
    const inner = fileStorage(dir);
    const counting: StorageAdapter = {
      ...inner,
      set: (k, v) => {
        bytes += v.length;
        return inner.set(k, v);
      },
    };
    // No server: the saves stay local (the address refuses connections).
    const options = {
      baseUrl: "http://127.0.0.1:9",
      runtimeKey: "k",
      clock: manualClock(),
      browserLifecycle: false,
      retry: { attempts: 1 },
    };
    const client = new SavepointClient({ ...options, storage: counting });
    const blob = "x".repeat(10_000);
    const perSave: number[] = [];
    for (let n = 1; n <= 30; n++) {
      const before = bytes;
      await client.save("main", { n, blob });
      perSave.push(bytes - before);
    }
    // The ring holds 25 (the default policy): the 30th save costs about what the 2nd did, one snapshot
    // (the record naming the snapshots grows by a few dozen bytes each); rewriting the ring would be 250 KB.
    expect(perSave[29]!).toBeLessThan(2 * 10_000);
    expect(perSave[29]! - perSave[1]!).toBeLessThan(2_000);
    client.close();
    const again = new SavepointClient({ ...options, storage: fileStorage(dir) });
    await again.start();
    expect(again.localSnapshots("main").map((s) => s.data.n)).toEqual(Array.from({ length: 25 }, (_, i) => i + 6));
    expect(again.load("main")).toEqual({ n: 30, blob });
    expect((await fileStorage(dir).keys("savepoint:snap:main:")).length).toBe(25);
    again.close();
  });
});

const c = { target: "main", serverUpdatedAt: 1, localSavedAt: 2 };

describe("sdk merge rules", () => {
  test("sum counts both sides' changes, even when the two sides reached the same value", () => {
    expect(mergeRules({ coins: "sum" })({ coins: 1 }, { coins: 2 }, { coins: 2 }, c)).toEqual({ coins: 3 });
    expect(mergeRules({ coins: "sum" })({ coins: 100 }, { coins: 150 }, { coins: 80 }, c)).toEqual({ coins: 130 });
  });

  test("nested paths, union of lists with removals kept, latest by time, three-way default", () => {
    const rules = mergeRules({ "stats.best": "max", "bag.items": "union", settings: "latest" });
    const base = { stats: { best: 10, runs: 1 }, bag: { items: ["a", "b"] }, settings: { v: 1 }, title: "x" };
    const server = { stats: { best: 30, runs: 1 }, bag: { items: ["a", "b", "c"] }, settings: { v: 2 }, title: "x" };
    const local = { stats: { best: 20, runs: 2 }, bag: { items: ["b", "d"] }, settings: { v: 3 }, title: "y" };
    expect(rules(base, server, local, c)).toEqual({
      stats: { best: 30, runs: 2 },
      bag: { items: ["b", "c", "d"] },
      settings: { v: 3 },
      title: "y",
    });
    expect(rules(base, server, local, { ...c, serverUpdatedAt: 3 }).settings).toEqual({ v: 2 });
  });

  test("a key removed on one side and unchanged on the other stays removed; both changed: otherwise decides", () => {
    expect(mergeRules({})({ a: 1, b: 1 }, { a: 1, b: 1 }, { b: 1 }, c)).toEqual({ b: 1 });
    expect(mergeRules({}, "server")({ a: 1 }, { a: 2 }, { a: 3 }, c)).toEqual({ a: 2 });
    expect(mergeRules({})({ a: 1 }, { a: 2 }, { a: 3 }, c)).toEqual({ a: 3 });
  });
});
