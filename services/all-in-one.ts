import type { Env } from "../shared/process/env.ts";
import type { Logger } from "../shared/process/log.ts";
import { openBus, openStore } from "../shared/process/open.ts";
import { defaultPlanOf, loadPlans } from "../shared/contract/plans.ts";
import { runAccounts } from "./accounts/start.ts";
import { bootstrapDefaults } from "./config/bootstrap.ts";
import { runConfig } from "./config/start.ts";
import { createGateway } from "./gateway/app.ts";
import { createDrain } from "./gateway/drain.ts";
import { gatewaySettings } from "./gateway/listen.ts";
import { serveReadiness, type serviceGroups } from "../shared/process/readiness.ts";
import { runAuthBridge } from "./auth-bridge/start.ts";
import { runBilling } from "./billing/start.ts";
import { runSaves } from "./saves/start.ts";
import { runTransfer } from "./transfer/start.ts";

/**
 * Every service and the gateway in one process, on whichever bus and store `env` names. Returns the
 * gateway (not yet listening), with SAVEPOINT_ADMIN_ADDRESS also the admin listener's, the first-start
 * credentials if this start created them, and the stops in start order. `now` is the services' clock
 * (tests move it).
 */
export async function startAllInOne(env: Env, log: Logger, now: () => Date = () => new Date()) {
  const plans = await loadPlans(env.SAVEPOINT_PLANS);
  const bus = await openBus(env, "savepoint", log);
  const open = async (service: (typeof serviceGroups)[number]) => {
    const store = await openStore(env, service, log);
    serveReadiness(bus, service, store);
    return store;
  };
  const configStore = await open("config");
  const accountsStore = await open("accounts");
  const transferStore = await open("transfer");
  const authStore = await open("auth-bridge");
  const billingStore = await open("billing");
  const savesStore = await open("saves");
  const config = await runConfig(bus, configStore, plans, defaultPlanOf(env), log, env.SAVEPOINT_AUDIT_RETENTION_DAYS);
  await runAccounts(bus, accountsStore, env, plans, log, now);
  await runTransfer(bus, transferStore, env, log, now);
  await runAuthBridge(bus, authStore, env, plans, log, now);
  await runBilling(bus, billingStore, env, log, now);
  await runSaves(bus, savesStore, plans, log, now);
  const bootstrap = await bootstrapDefaults(config);
  const drain = createDrain();
  const gatewayOptions = { bus, log: log.child({ service: "gateway" }), drain, now, ...gatewaySettings(env) };
  // With an admin address, the admin API and /metrics get a listener of their own (README, Operators).
  const gateway = createGateway({ ...gatewayOptions, surface: env.SAVEPOINT_ADMIN_ADDRESS ? "public" : "all" });
  const adminGateway = env.SAVEPOINT_ADMIN_ADDRESS ? createGateway({ ...gatewayOptions, surface: "admin" }) : undefined;
  const stops = [() => configStore.close(), () => accountsStore.close(), () => transferStore.close(), () => authStore.close(), () => billingStore.close(), () => savesStore.close(), () => bus.close()];
  return { gateway, adminGateway, bus, bootstrap, stops, drain };
}
