import { readEnv } from "../shared/env.ts";
import { createLogger } from "../shared/log.ts";
import { stopOnSignal } from "../shared/open.ts";
import { startOrExit } from "../shared/standalone.ts";
import { startAllInOne } from "./all-in-one.ts";
import { adminApi, addresses, listenOptions } from "./gateway/listen.ts";

// `npm start`: the embedded deployment by default (in-process bus, SQLite under ./data); the same
// process runs on NATS and MongoDB when NATS_URL and MONGODB_URL are set.
await startOrExit("savepoint", async () => {
  const log = createLogger({ app: "savepoint" });
  const env = readEnv();
  const { gateway, bootstrap, stops, drain } = await startAllInOne(env, log);
  const server = gateway.listen(listenOptions(env));

  // Printed for a person starting it by hand, so on stdout rather than in the JSON log.
  const mode = env.NATS_URL ? "distributed (NATS + MongoDB)" : `embedded (SQLite in ${env.SAVEPOINT_DATA_DIR})`;
  const { url, localUrl } = addresses(env.HOST, server.server!.port!);
  console.log(`Savepoint listening on ${url} — ${mode}`);
  console.log(`Open ${localUrl ?? url}/docs for the API reference.`);
  console.log(adminApi(env) === "on" ? "Admin API on at /admin/v1 (SAVEPOINT_ADMIN_TOKEN is set)." : "Admin API off: set SAVEPOINT_ADMIN_TOKEN to turn it on.");
  if (bootstrap) {
    // Printed once, on the start that created it; only its hash is stored.
    console.log(`Created workspace ${bootstrap.workspaceId}, project ${bootstrap.projectId} (plan self_hosted).`);
    console.log(`Stage runtime key (shown once, keep it): ${bootstrap.runtimeKey}`);
  }
  stopOnSignal(log, [() => drain.begin(env.SAVEPOINT_DRAIN_MS), () => server.stop(), ...[...stops].reverse()]);
});
