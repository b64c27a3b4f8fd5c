import type { Bus } from "../../shared/bus/port.ts";
import type { Logger } from "../../shared/log.ts";
import type { PlanCatalog } from "../../shared/plans.ts";
import type { Store } from "../../shared/store/port.ts";
import { checkPayloadBudget } from "./payload-budget.ts";
import { openRepo } from "./repo.ts";
import { startAccounts } from "./service.ts";

/** Opens the service's collections and serves it on `bus`. */
export async function runAccounts(bus: Bus, store: Store, plans: PlanCatalog, log: Logger, now: () => Date = () => new Date()) {
  checkPayloadBudget(plans, bus.maxPayload);
  const deps = { repo: await openRepo(store), bus, plans, log: log.child({ service: "accounts" }), now };
  await startAccounts(deps);
  return deps;
}
