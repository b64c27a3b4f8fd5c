import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
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
 * embedded Savepoint, and plays 10 ticks under `mono` (the C# twin of `npm run sdk:example`). Each run
 * starts afresh in a new folder; with SAVEPOINT_IDLE_DIR set, the device's saves and the server's data
 * are kept there, so a second run resumes where the first stopped, on the device and on the server.
 */
const dir = process.env.SAVEPOINT_IDLE_DIR ?? mkdtempSync(join(tmpdir(), "savepoint-idle-"));
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
const admin = async (method: string, path: string, body: unknown) => {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { runtimeKey?: string };
};
// The first run's project is remembered (its id is no secret); a later run mints itself a new stage key,
// since a key is shown only once and stored only as its hash.
const projectFile = join(dir, "project-id");
if (bootstrap) writeFileSync(projectFile, bootstrap.projectId);
const projectId = bootstrap?.projectId ?? readFileSync(projectFile, "utf8").trim();
const runtimeKey =
  bootstrap?.runtimeKey ??
  (await admin("POST", `/admin/v1/projects/${projectId}/environments/stage/runtime-keys`, { label: "idle example" }))
    .runtimeKey!;
// A short interval, so the game's output shows saves coalescing between syncs.
await admin("PUT", `/admin/v1/projects/${projectId}/sync-policy`, {
  minRemoteSyncIntervalSeconds: 1,
  forceSyncCooldownSeconds: 1,
});
const saves = join(dir, "saves");
console.log(`Savepoint API on ${api}; the game saves to ${saves}`);
const proc = Bun.spawn([monoTools()!.mono, game, api, runtimeKey, saves, process.env.SAVEPOINT_IDLE_TICKS ?? "10"], {
  stdout: "inherit",
  stderr: "inherit",
});
const code = await proc.exited;
await gateway.stop(true);
for (const s of [...stops].reverse()) await s();
process.exit(code);
