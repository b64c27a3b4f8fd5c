import type { Bus } from "../../shared/bus/port.ts";
import type { Env } from "../../shared/process/env.ts";
import type { Logger } from "../../shared/process/log.ts";
import type { PlanCatalog } from "../../shared/contract/plans.ts";
import { keptServiceSecret } from "../../shared/process/service-secret.ts";
import type { Store } from "../../shared/store/port.ts";
import type { Deps } from "./deps.ts";
import { createKeySets, keySetTimeoutMs } from "./key-sets.ts";
import { openIdempotency } from "../../shared/serving/idempotency.ts";
import { openRepo } from "./repo.ts";
import { startAuthBridge } from "./service.ts";

/** Opens the service's collections and serves it on `bus`. */
export async function runAuthBridge(bus: Bus, store: Store, env: Env, plans: PlanCatalog, log: Logger, now: () => Date = () => new Date()): Promise<Deps> {
  const scoped = log.child({ service: "auth-bridge" });
  const deps: Deps = {
    repo: await openRepo(store),
    bus,
    log: scoped,
    idempotency: await openIdempotency(store, scoped, now),
    plans,
    keySets: createKeySets({ cooldownMs: env.SAVEPOINT_JWKS_COOLDOWN_MS, timeoutMs: keySetTimeoutMs(env.SAVEPOINT_BUS_TIMEOUT_MS) }),
    now,
    secret: await keptServiceSecret(store, env, "SAVEPOINT_LINK_SECRET"),
  };
  startAuthBridge(deps);
  return deps;
}
