import type { Bus } from "../../shared/bus/port.ts";
import type { Env } from "../../shared/process/env.ts";
import type { Logger } from "../../shared/process/log.ts";
import { keptServiceSecret } from "../../shared/process/service-secret.ts";
import type { Store } from "../../shared/store/port.ts";
import type { Deps } from "./deps.ts";
import { openIdempotency } from "../../shared/serving/idempotency.ts";
import { openRepo } from "./repo.ts";
import { startTransfer } from "./service.ts";

/** Opens the service's collections and serves it on `bus`. */
export async function runTransfer(bus: Bus, store: Store, env: Env, log: Logger, now: () => Date = () => new Date()): Promise<Deps> {
  const scoped = log.child({ service: "transfer" });
  const deps: Deps = {
    repo: await openRepo(store),
    bus,
    log: scoped,
    now,
    idempotency: await openIdempotency(store, scoped, now),
    secret: await keptServiceSecret(store, env, "SAVEPOINT_TRANSFER_SECRET"),
  };
  startTransfer(deps);
  return deps;
}
