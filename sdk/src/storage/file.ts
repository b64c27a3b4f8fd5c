import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { StorageAdapter } from "./adapter.ts";

const fileName = (key: string) => `${encodeURIComponent(key).replace(/\./g, "%2E")}.json`;
const keyOf = (file: string) => decodeURIComponent(file.slice(0, -".json".length));

/**
 * One file per key in `dir`, for Node, Bun, Deno and Electron. A write goes to a temporary file that is
 * fsynced, then renamed over the old one, and the directory is fsynced: a killed process leaves the old
 * or the new value, never half of one.
 */
export function fileStorage(dir: string): StorageAdapter {
  mkdirSync(dir, { recursive: true });
  const syncDir = () => {
    try {
      const fd = openSync(dir, "r");
      fsyncSync(fd);
      closeSync(fd);
    } catch {} // Some platforms (Windows) cannot open a directory; the rename is still atomic.
  };
  return {
    async get(key) {
      try {
        return readFileSync(join(dir, fileName(key)), "utf8");
      } catch (e) {
        if ((e as { code?: string }).code === "ENOENT") return null;
        throw e;
      }
    },
    async set(key, value) {
      const target = join(dir, fileName(key));
      const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
      const fd = openSync(tmp, "w");
      try {
        writeSync(fd, value);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, target);
      syncDir();
    },
    async remove(key) {
      rmSync(join(dir, fileName(key)), { force: true });
      syncDir();
    },
    async keys(prefix) {
      return readdirSync(dir)
        .filter((f) => f.endsWith(".json"))
        .map(keyOf)
        .filter((k) => k.startsWith(prefix));
    },
  };
}
