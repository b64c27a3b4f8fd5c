import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createLogger } from "../../shared/observe/log.ts";
import { readEnv } from "../../shared/process/env.ts";
import { openStore } from "../../shared/process/open.ts";
import { createMongoStore } from "../../shared/store/mongo.ts";
import type { Store } from "../../shared/store/port.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { mongo, tempDir, trackChild, uniqueDb } from "../helpers/infra.ts";

// Each store records its schema version, start-up migrates an older one forward and refuses a newer one
// with one line (docs/operating.md#upgrading). Both adapters, through the same openStore every process uses.
type Meta = { _id: string; version: number };
const log = createLogger({ test: "schema-versions" });

const adapters: [
  string,
  () => Promise<{ env: ReturnType<typeof readEnv>; raw: () => Promise<Store>; where: RegExp }>,
][] = [
  [
    "sqlite",
    async () => {
      const dir = tempDir("schema");
      const env = readEnv({ SAVEPOINT_DATA_DIR: dir });
      return {
        env,
        raw: async () => createSqliteStore(join(dir, "accounts.sqlite")),
        where: /SQLite .*accounts\.sqlite/,
      };
    },
  ],
  [
    "mongo",
    async () => {
      const { url } = await mongo();
      const db = uniqueDb("schema");
      const env = readEnv({ MONGODB_URL: url, MONGODB_DB: db, SAVEPOINT_START_TIMEOUT_MS: "0" });
      return { env, raw: () => createMongoStore(url, db), where: new RegExp(`MongoDB database ${db}`) };
    },
  ],
];

for (const [name, setup] of adapters) {
  describe(`schema versions: ${name}`, () => {
    test("a store from before versions is migrated to this server's schema, recorded, and keeps its documents", async () => {
      const { env, raw } = await setup();
      const old = await raw();
      await (await old.collection("accounts")).insert({ _id: "acc_old", playerId: "p1" });
      await old.close();

      const store = await openStore(env, "accounts", log);
      const meta = await (await store.collection<Meta>("_meta")).get("schema:accounts");
      expect(meta?.version).toBe(3);
      expect(await (await store.collection("accounts")).get("acc_old")).toEqual({ _id: "acc_old", playerId: "p1" });
      await store.close();

      // A second start finds it recorded and changes nothing.
      const again = await openStore(env, "accounts", log);
      expect((await (await again.collection<Meta>("_meta")).get("schema:accounts"))?.version).toBe(3);
      await again.close();
    });

    test("a store a newer server wrote is refused with one line naming the store, its version and this server's", async () => {
      const { env, raw, where } = await setup();
      const newer = await raw();
      await (await newer.collection<Meta>("_meta")).insert({ _id: "schema:accounts", version: 7 });
      await newer.close();

      const opened = openStore(env, "accounts", log).then(async (store) => {
        await store.close();
        return "opened";
      });
      const err = (await opened.catch((e: Error) => e)) as Error;
      expect(err).toBeInstanceOf(Error);
      expect(err.message).not.toContain("\n");
      expect(err.message).toMatch(where);
      expect(err.message).toMatch(
        /the accounts store .* is at schema version 7, but this server \(Savepoint 0\.1\.0\) knows schema 3 at most/,
      );

      // Refused, not rewritten: the newer server still finds its own version.
      const after = await raw();
      expect((await (await after.collection<Meta>("_meta")).get("schema:accounts"))?.version).toBe(7);
      await after.close();
    });
  });
}

test("npm start on a data directory a newer server wrote exits 1 with that one line", async () => {
  const dir = tempDir("schema-start");
  const newer = createSqliteStore(join(dir, "config.sqlite"));
  await (await newer.collection<Meta>("_meta")).insert({ _id: "schema:config", version: 3 });
  await newer.close();
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "services", "main.ts")], {
    env: {
      ...process.env,
      NATS_URL: "",
      MONGODB_URL: "",
      PORT: "0",
      HOST: "127.0.0.1",
      SAVEPOINT_DATA_DIR: dir,
      LOG_LEVEL: "warn",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  trackChild(proc);
  expect(await proc.exited).toBe(1);
  const stderr = (await new Response(proc.stderr).text()).trim();
  expect(stderr.split("\n")).toHaveLength(1);
  const line =
    /^savepoint: the config store \(SQLite .*config\.sqlite\) is at schema version 3, but this server \(Savepoint 0\.1\.0\) knows schema 2 at most/;
  expect(stderr).toMatch(line);
});
