import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startAllInOne } from "../../services/all-in-one.ts";
import { listenOptions } from "../../services/gateway/listen.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { readEnv } from "../../shared/process/env.ts";
import { buildSdk } from "../scripts/build.ts";

/**
 * `npm run sdk:example`: builds the SDK, starts an embedded Savepoint on a fresh data directory, and
 * serves the example game from another origin (as a browser game meets the API). Ports: API 8787, game 8788
 * (SAVEPOINT_EXAMPLE_API_PORT, SAVEPOINT_EXAMPLE_PORT).
 */
const adminToken = crypto.randomUUID();
const apiPort = Number(process.env.SAVEPOINT_EXAMPLE_API_PORT ?? 8787);
const gamePort = Number(process.env.SAVEPOINT_EXAMPLE_PORT ?? 8788);
const dataDir = process.env.SAVEPOINT_DATA_DIR ?? mkdtempSync(join(tmpdir(), "savepoint-example-"));

await buildSdk();
const env = readEnv({
  SAVEPOINT_DATA_DIR: dataDir,
  SAVEPOINT_ADMIN_TOKEN: adminToken,
  LOG_LEVEL: "warn",
  SAVEPOINT_REQUEST_LOG: "errors",
});
const { gateway, bootstrap } = await startAllInOne(env, createLogger({ service: "example" }));
gateway.listen(listenOptions({ HOST: "127.0.0.1", PORT: apiPort }));
const api = `http://127.0.0.1:${apiPort}`;
if (!bootstrap) throw new Error(`${dataDir} already holds a deployment; unset SAVEPOINT_DATA_DIR for a fresh one`);
// A short interval, so the cloud icon visibly goes from "saving soon" to "saved" while you play.
await fetch(`${api}/admin/v1/projects/${bootstrap.projectId}/sync-policy`, {
  method: "PUT",
  headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
  body: JSON.stringify({ minRemoteSyncIntervalSeconds: 5, forceSyncCooldownSeconds: 5 }),
});

const here = import.meta.dir;
const files: Record<string, [string, string]> = {
  "/": [join(here, "index.html"), "text/html; charset=utf-8"],
  "/game.js": [join(here, "game.js"), "text/javascript"],
  "/savepoint.js": [join(here, "..", "dist", "savepoint.browser.min.js"), "text/javascript"],
};
Bun.serve({
  hostname: "127.0.0.1",
  port: gamePort,
  fetch(req) {
    const path = new URL(req.url).pathname;
    if (path === "/config.json") return Response.json({ api, key: bootstrap.runtimeKey });
    const file = files[path];
    return file
      ? new Response(readFileSync(file[0]), { headers: { "content-type": file[1] } })
      : new Response("not found", { status: 404 });
  },
});
console.log(`Savepoint API on ${api} (data in ${dataDir})`);
console.log(`Example game on http://127.0.0.1:${gamePort}/ - open it in a browser; Ctrl-C stops both.`);
