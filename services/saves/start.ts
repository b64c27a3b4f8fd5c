import type { Bus } from "../../shared/bus/port.ts";
import type { Logger } from "../../shared/process/log.ts";
import type { PlanCatalog } from "../../shared/contract/plans.ts";
import type { Store } from "../../shared/store/port.ts";
import type { Deps } from "./deps.ts";
import { openIdempotency } from "../../shared/serving/idempotency.ts";
import { openRepo } from "./repo.ts";
import { startSaves } from "./service.ts";

/** Opens the service's collection and serves it on `bus`. */
export async function runSaves(bus: Bus, store: Store, plans: PlanCatalog, log: Logger, now: () => Date = () => new Date()): Promise<Deps> {
  const scoped = log.child({ service: "saves" });
  const deps: Deps = { repo: await openRepo(store), bus, plans, log: scoped, now, idempotency: await openIdempotency(store, scoped, now) };
  startSaves(deps);
  return deps;
}
