import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createLogger } from "../../shared/observe/log.ts";
import { readEnv } from "../../shared/process/env.ts";
import { openStore } from "../../shared/process/open.ts";
import { mongo, startNats, trackChild, uniqueDb } from "../helpers/infra.ts";

/**
 * Issue 17: a MONGODB_URL naming `replicaSet=` against a standalone server or FerretDB (which has no
 * replica set) used to wait SAVEPOINT_START_TIMEOUT_MS and say only "store unavailable". The store now
 * says what is wrong and what to change, at once.
 */
const root = join(import.meta.dir, "..", "..");
const withReplicaSet = (url: string) => `${url}${url.includes("?") ? "&" : "?"}replicaSet=rs0`;

describe("MONGODB_URL with replicaSet= against FerretDB", () => {
  let url: string;
  let nats: { url: string; stop(): void };
  beforeAll(async () => {
    url = withReplicaSet((await mongo()).url);
    nats = await startNats();
  });
  afterAll(() => nats?.stop());

  test("opening the store fails at once, saying the server is not in replica set rs0 and to drop replicaSet=", async () => {
    // A start timeout far longer than the test's: the refusal must not wait for it.
    const env = readEnv({ MONGODB_URL: url, MONGODB_DB: uniqueDb("rs"), SAVEPOINT_START_TIMEOUT_MS: "600000" });
    const opened = openStore(env, "config", createLogger({ test: "replica-set" }));
    await expect(opened).rejects.toThrow(
      /not a member of replica set "rs0".*standalone server or FerretDB.*Drop replicaSet=rs0 from MONGODB_URL/s,
    );
  }, 30_000);

  test("a service started with it exits 1 with that message on stderr", async () => {
    const proc = Bun.spawn([process.execPath, join(root, "services", "standalone.ts"), "config"], {
      env: {
        ...process.env,
        NATS_URL: nats.url,
        MONGODB_URL: url,
        MONGODB_DB: uniqueDb("rs"),
        SAVEPOINT_START_TIMEOUT_MS: "600000",
        LOG_LEVEL: "error",
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    trackChild(proc);
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(code, stderr).toBe(1);
    expect(stderr).toMatch(/^config: MongoDB at 127\.0\.0\.1:\d+ answered but is not a member of replica set "rs0"/m);
  }, 30_000);

  test("a server that is down is still reported as unavailable, not as a replica-set mistake", async () => {
    const env = readEnv({
      MONGODB_URL: "mongodb://127.0.0.1:1/?replicaSet=rs0",
      MONGODB_DB: uniqueDb("rs"),
      SAVEPOINT_START_TIMEOUT_MS: "0",
    });
    const opened = openStore(env, "config", createLogger({ test: "replica-set" }));
    await expect(opened).rejects.toThrow("store unavailable");
  }, 30_000);
});
