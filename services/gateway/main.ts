import { createLogger } from "../../shared/observe/log.ts";
import { readEnv } from "../../shared/process/env.ts";
import { openBus, stopOnSignal } from "../../shared/process/open.ts";
import { startOrExit } from "../../shared/process/standalone.ts";
import { createGateway } from "./app.ts";
import { createDrain, drainOnStop, pendingRequests } from "./drain.ts";
import { adminApi, gatewaySettings, listenGateway, tlsFilesOf } from "./listen.ts";

// The gateway alone, for the distributed deployment: run as many copies as you like behind a balancer.
await startOrExit("gateway", async () => {
  const log = createLogger({ service: "gateway" });
  const env = readEnv();
  if (!env.NATS_URL) throw new Error("NATS_URL: required to run the gateway on its own");
  const bus = await openBus(env, "gateway", log);
  const drain = createDrain();
  const options = { bus, log, drain, ...gatewaySettings(env) };
  const admin = env.SAVEPOINT_ADMIN_ADDRESS;
  const listen = { tls: tlsFilesOf(env), trustedProxies: env.SAVEPOINT_TRUSTED_PROXIES, log };
  const gateway = createGateway({ ...options, surface: admin ? "public" : "all" });
  const server = listenGateway(gateway, env, listen);
  // The admin API and /metrics on their own address when one is set (docs/operators.md), with the same certificate.
  const adminGateway = admin ? createGateway({ ...options, surface: "admin" }) : undefined;
  const adminServer =
    admin && adminGateway ? listenGateway(adminGateway, { HOST: admin.host, PORT: admin.port }, listen) : undefined;
  // Installed before "listening" is logged: a signal sent on that line drains instead of killing.
  // Stop taking requests, finish those in flight, then leave the bus.
  // Ctrl-C ends the drain once nothing is in flight; SIGTERM (an orchestrator) waits it out for the balancers.
  const drained = drainOnStop(drain, env.SAVEPOINT_DRAIN_MS, log, () => pendingRequests(gateway, adminGateway));
  stopOnSignal(log, [drained, () => server.stop(), () => adminServer?.stop(), () => bus.close()]);
  const { url, localUrl } = server;
  log.info("gateway listening", {
    url,
    ...(localUrl ? { localUrl } : {}),
    adminApi: adminApi(env),
    ...(adminServer ? { adminUrl: adminServer.url } : {}),
  });
});
