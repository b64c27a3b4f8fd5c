import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startAllInOne } from "../../services/all-in-one.ts";
import { listenOptions } from "../../services/gateway/listen.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { readEnv } from "../../shared/process/env.ts";
import { monoTools } from "../../tests/helpers/tools.ts";
import { buildIdleGame } from "./build.ts";

/**
 * `npm run sdk-unity:example`: compiles the C# client and its console idle game with Mono, starts an
 * embedded Savepoint on a fresh data directory, and plays 10 ticks under `mono` (the C# twin of
 * `npm run sdk:example`). Run it twice with SAVEPOINT_IDLE_SAVES set to one folder to see a restart resume.
 */
const dir = mkdtempSync(join(tmpdir(), "savepoint-idle-"));
const game = await buildIdleGame(join(dir, "bin"));
const adminToken = crypto.randomUUID();
// Request lines would interleave with the game's own output: only errors are logged.
const env = readEnv({
  SAVEPOINT_DATA_DIR: join(dir, "server"),
  SAVEPOINT_ADMIN_TOKEN: adminToken,
  LOG_LEVEL: "warn",
  SAVEPOINT_REQUEST_LOG: "errors",
});
const { gateway, bootstrap, stops } = await startAllInOne(env, createLogger({ service: "example" }));
const server = gateway.listen(listenOptions({ HOST: "127.0.0.1", PORT: 0 })).server!;
const api = `http://127.0.0.1:${server.port}`;
if (!bootstrap) throw new Error("the example's data directory already holds a deployment");
// A short interval, so the game's output shows saves coalescing between syncs.
await fetch(`${api}/admin/v1/projects/${bootstrap.projectId}/sync-policy`, {
  method: "PUT",
  headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
  body: JSON.stringify({ minRemoteSyncIntervalSeconds: 1, forceSyncCooldownSeconds: 1 }),
});
const saves = process.env.SAVEPOINT_IDLE_SAVES ?? join(dir, "saves");
console.log(`Savepoint API on ${api}; the game saves to ${saves}`);
const proc = Bun.spawn(
  [monoTools()!.mono, game, api, bootstrap.runtimeKey, saves, process.env.SAVEPOINT_IDLE_TICKS ?? "10"],
  { stdout: "inherit", stderr: "inherit" },
);
const code = await proc.exited;
await gateway.stop(true);
for (const s of [...stops].reverse()) await s();
process.exit(code);
