import { createGateway } from "../../services/gateway/app.ts";
import { listenOptions } from "../../services/gateway/listen.ts";
import { loadService } from "../../services/registry.ts";
import { createLocalBus } from "../../shared/bus/local.ts";
import { createNatsBus } from "../../shared/bus/nats.ts";
import type { Bus } from "../../shared/bus/port.ts";
import { loadPlans } from "../../shared/contract/plans.ts";
import { contractRoutes } from "../../shared/contract/routes.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { readEnv } from "../../shared/process/env.ts";
import { openStore } from "../../shared/process/open.ts";
import { contextFor } from "../../shared/process/service-module.ts";
import { echo } from "./echo-answer.ts";

/**
 * The gateway with the slot-sync route answered by an echo (G1, G2): authentication (runtime key and
 * session, cached as in production), validation and the answer, and nothing behind them. ECHO picks
 * where the echo runs: `direct` (no bus at all), `local` (over the in-process bus), `nats` (another
 * process, `echo.ts`, over NATS_URL). Every other route goes to real config and accounts services.
 */
const mode = process.env.ECHO ?? "direct";
const log = createLogger({ bench: "gateway-only" });
const env = readEnv({ ...process.env, NATS_URL: "", MONGODB_URL: "" });
const plans = await loadPlans(env.SAVEPOINT_PLANS);
const services = createLocalBus(log);
for (const name of ["config", "accounts"] as const) {
  await (await loadService(name)).start(
    contextFor(name, { bus: services, store: await openStore(env, name, log), env, plans, log, now: () => new Date() }),
  );
}

const subject = contractRoutes.syncSlot.subject;

let answer: Bus["request"];
if (mode === "direct") answer = (_s, data) => echo(data);
else if (mode === "local") {
  const local = createLocalBus(log);
  local.serve("echo", subject, echo);
  answer = (s, data, options) => local.request(s, data, options);
} else {
  const nats = await createNatsBus({ url: process.env.ECHO_NATS_URL!, name: "bench-gateway", log });
  answer = (s, data, options) => nats.request(s, data, options);
}
const bus: Bus = {
  ...services,
  request: (s, data, options) => (s === subject ? answer(s, data, options) : services.request(s, data, options)),
};
const server = createGateway({
  bus,
  log,
  adminToken: env.SAVEPOINT_ADMIN_TOKEN,
  timeoutMs: env.SAVEPOINT_BUS_TIMEOUT_MS,
}).listen(listenOptions({ HOST: "127.0.0.1", PORT: env.PORT }));
console.log(`gateway-only (${mode}) listening on ${server.server!.port}`);
process.on("SIGINT", () => process.exit(0));
