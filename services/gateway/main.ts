import { readEnv } from "../../shared/process/env.ts";
import { createLogger } from "../../shared/process/log.ts";
import { openBus, stopOnSignal } from "../../shared/process/open.ts";
import { startOrExit } from "../../shared/process/standalone.ts";
import { createGateway } from "./app.ts";
import { createDrain, drainOnStop, pendingRequests } from "./drain.ts";
import { adminApi, adminListenOptions, addresses, gatewaySettings, listenOptions } from "./listen.ts";

// The gateway alone, for the distributed deployment: run as many copies as you like behind a balancer.
await startOrExit("gateway", async () => {
  const log = createLogger({ service: "gateway" });
  const env = readEnv();
  if (!env.NATS_URL) throw new Error("NATS_URL: required to run the gateway on its own");
  const bus = await openBus(env, "gateway", log);
  const drain = createDrain();
  const options = { bus, log, drain, ...gatewaySettings(env) };
  const admin = env.SAVEPOINT_ADMIN_ADDRESS;
  const server = createGateway({ ...options, surface: admin ? "public" : "all" }).listen(listenOptions(env));
  // The admin API and /metrics on their own address when one is set (README, Operators).
  const adminServer = admin && createGateway({ ...options, surface: "admin" }).listen(adminListenOptions(admin));
  const adminUrl = adminServer ? addresses(admin.host, adminServer.server!.port!).url : undefined;
  // Installed before "listening" is logged: a signal sent on that line drains instead of killing.
  // Stop taking requests, finish those in flight, then leave the bus.
  // Ctrl-C ends the drain once nothing is in flight; SIGTERM (an orchestrator) waits it out for the balancers.
  const drained = drainOnStop(drain, env.SAVEPOINT_DRAIN_MS, log, () => pendingRequests(server, adminServer));
  stopOnSignal(log, [drained, () => server.stop(), () => adminServer?.stop(), () => bus.close()]);
  log.info("gateway listening", { ...addresses(env.HOST, server.server!.port!), adminApi: adminApi(env), ...(adminUrl ? { adminUrl } : {}) });
});
