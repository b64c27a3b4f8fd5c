import { readEnv } from "../shared/env.ts";
import { createLogger } from "../shared/log.ts";
import { stopOnSignal } from "../shared/open.ts";
import { startAllInOne } from "./all-in-one.ts";

// `npm start`: the embedded deployment by default (in-process bus, SQLite under ./data); the same
// process runs on NATS and MongoDB when NATS_URL and MONGODB_URL are set.
const log = createLogger({ app: "savepoint" });
const env = readEnv();
const { gateway, bootstrap, stops } = await startAllInOne(env, log);
const server = gateway.listen({ port: env.PORT, hostname: "0.0.0.0", maxRequestBodySize: 2 * 1024 * 1024 });

const mode = env.NATS_URL ? "distributed (NATS + MongoDB)" : `embedded (SQLite in ${env.SAVEPOINT_DATA_DIR})`;
console.log(`Savepoint listening on http://localhost:${server.server?.port} — ${mode}`);
if (bootstrap) {
  // Printed once, on the start that created it; only its hash is stored.
  console.log(`Created workspace ${bootstrap.workspaceId}, project ${bootstrap.projectId} (plan self_hosted).`);
  console.log(`Stage runtime key (shown once, keep it): ${bootstrap.runtimeKey}`);
}
if (!env.SAVEPOINT_ADMIN_TOKEN) console.log("Admin API off: set SAVEPOINT_ADMIN_TOKEN to turn it on.");
stopOnSignal(log, [...stops, () => server.stop()]);
