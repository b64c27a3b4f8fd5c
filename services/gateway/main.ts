import { readEnv } from "../../shared/env.ts";
import { createLogger } from "../../shared/log.ts";
import { openBus, stopOnSignal } from "../../shared/open.ts";
import { startOrExit } from "../../shared/standalone.ts";
import { createGateway } from "./app.ts";
import { createDrain } from "./drain.ts";
import { adminApi, addresses, listenOptions } from "./listen.ts";

// The gateway alone, for the distributed deployment: run as many copies as you like behind a balancer.
await startOrExit("gateway", async () => {
  const log = createLogger({ service: "gateway" });
  const env = readEnv();
  if (!env.NATS_URL) throw new Error("NATS_URL: required to run the gateway on its own");
  const bus = await openBus(env, "gateway", log);
  const drain = createDrain();
  const gateway = createGateway({ bus, log, adminToken: env.SAVEPOINT_ADMIN_TOKEN, timeoutMs: env.SAVEPOINT_BUS_TIMEOUT_MS, trustedProxies: env.SAVEPOINT_TRUSTED_PROXIES, drain });
  const server = gateway.listen(listenOptions(env));
  log.info("gateway listening", { ...addresses(env.HOST, server.server!.port!), adminApi: adminApi(env) });
  // Stop taking requests, finish those in flight, then leave the bus.
  stopOnSignal(log, [() => drain.begin(env.SAVEPOINT_DRAIN_MS), () => server.stop(), () => bus.close()]);
});
