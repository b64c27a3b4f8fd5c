import { createLogger } from "../shared/observe/log.ts";
import { readEnv } from "../shared/process/env.ts";
import { stopOnSignal } from "../shared/process/open.ts";
import { startOrExit } from "../shared/process/standalone.ts";
import { startAllInOne } from "./all-in-one.ts";
import { drainOnStop, pendingRequests } from "./gateway/drain.ts";
import { adminApi, listenGateway, tlsFilesOf } from "./gateway/listen.ts";
import { keyHint } from "./key-hint.ts";

// `npm start`: the embedded deployment by default (in-process bus, SQLite under ./data); the same
// process runs on NATS and MongoDB when NATS_URL and MONGODB_URL are set.
await startOrExit("savepoint", async () => {
  const log = createLogger({ app: "savepoint" });
  const env = readEnv();
  const { gateway, adminGateway, bootstrap, firstProject, stops, drain } = await startAllInOne(env, log);
  // The admin listener gets the same certificate: an admin token is a secret too.
  const listen = { tls: tlsFilesOf(env), trustedProxies: env.SAVEPOINT_TRUSTED_PROXIES, log };
  const server = listenGateway(gateway, env, listen);
  const admin = env.SAVEPOINT_ADMIN_ADDRESS;
  const adminServer =
    admin && adminGateway ? listenGateway(adminGateway, { HOST: admin.host, PORT: admin.port }, listen) : undefined;

  // Installed before "listening" is printed: a signal sent on that line drains instead of killing.
  // Ctrl-C ends the drain once nothing is in flight; SIGTERM (an orchestrator) waits it out for the balancers.
  const drained = drainOnStop(drain, env.SAVEPOINT_DRAIN_MS, log, () =>
    pendingRequests(gateway, adminServer && adminGateway),
  );
  stopOnSignal(log, [drained, () => server.stop(), () => adminServer?.stop(), ...[...stops].reverse()]);

  // Printed for a person starting it by hand, so on stdout rather than in the JSON log.
  const mode = env.NATS_URL ? "distributed (NATS + MongoDB)" : `embedded (SQLite in ${env.SAVEPOINT_DATA_DIR})`;
  const { url, localUrl } = server;
  console.log(`Savepoint listening on ${url} — ${mode}`);
  console.log(`Open ${localUrl ?? url}/docs for the API reference.`);
  const adminUrl = adminServer ? adminServer.url : url;
  console.log(
    adminApi(env) === "on"
      ? `Admin API on at ${adminUrl}/admin/v1, console at ${adminUrl}/console (sign in with SAVEPOINT_ADMIN_TOKEN).`
      : "Admin API off, and the console with it: restart with SAVEPOINT_ADMIN_TOKEN set to turn them on.",
  );
  if (adminServer)
    console.log(`Metrics at ${adminUrl}/metrics; neither is served on ${url} (SAVEPOINT_ADMIN_ADDRESS).`);
  if (bootstrap) {
    // Printed once, on the start that created it; only its hash is stored.
    console.log(`Created workspace ${bootstrap.workspaceId}, project ${bootstrap.projectId} (plan self_hosted).`);
    console.log(`Stage runtime key (shown once, keep it): ${bootstrap.runtimeKey}`);
  } else {
    console.log(keyHint(firstProject, adminApi(env) === "on"));
  }
});
