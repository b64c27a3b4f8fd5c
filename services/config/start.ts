import { watchGateways } from "../../shared/bus/cache-drops.ts";
import type { Bus } from "../../shared/bus/port.ts";
import type { Logger } from "../../shared/process/log.ts";
import type { PlanCatalog, PlanName } from "../../shared/contract/plans.ts";
import type { Store } from "../../shared/store/port.ts";
import { openRepo } from "./repo.ts";
import { startConfig } from "./service.ts";

/** Opens the service's collections and serves it on `bus`. */
export async function runConfig(bus: Bus, store: Store, plans: PlanCatalog, defaultPlan: PlanName, log: Logger, auditRetentionDays?: number) {
  const deps = { repo: await openRepo(store), bus, plans, defaultPlan, log: log.child({ service: "config" }), now: () => new Date() };
  watchGateways(bus);
  startConfig(deps, auditRetentionDays);
  return deps;
}
