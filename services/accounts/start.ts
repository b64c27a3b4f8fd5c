import { watchGateways } from "../../shared/bus/cache-drops.ts";
import type { Bus } from "../../shared/bus/port.ts";
import type { Env } from "../../shared/process/env.ts";
import type { Logger } from "../../shared/process/log.ts";
import type { PlanCatalog } from "../../shared/contract/plans.ts";
import type { Store } from "../../shared/store/port.ts";
import { checkPayloadBudget } from "./payload-budget.ts";
import { openIdempotency } from "../../shared/serving/idempotency.ts";
import { openRepo } from "./repo.ts";
import { startAccounts } from "./service.ts";

/** Opens the service's collections and serves it on `bus`. */
export async function runAccounts(bus: Bus, store: Store, env: Env, plans: PlanCatalog, log: Logger, now: () => Date = () => new Date()) {
  checkPayloadBudget(plans, bus.maxPayload);
  const scoped = log.child({ service: "accounts" });
  const jobs = { maxDeliver: env.SAVEPOINT_JOB_MAX_DELIVER, backoffMs: env.SAVEPOINT_JOB_BACKOFF_MS, ackWaitMs: env.SAVEPOINT_JOB_ACK_WAIT_MS };
  const deps = { repo: await openRepo(store), bus, plans, log: scoped, now, jobs, idempotency: await openIdempotency(store, scoped, now) };
  watchGateways(bus);
  await startAccounts(deps);
  return deps;
}
