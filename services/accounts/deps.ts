import type { Bus, WorkOptions } from "../../shared/bus/port.ts";
import type { PlanCatalog } from "../../shared/contract/plans.ts";
import type { Logger } from "../../shared/observe/log.ts";
import type { Idempotency } from "../../shared/serving/idempotency.ts";
import type { Repo } from "./repo.ts";

/** What every accounts verb may use. `now` is injectable so tests can move time. */
export interface Deps {
  repo: Repo;
  bus: Bus;
  plans: PlanCatalog;
  log: Logger;
  now: () => Date;
  /** How the cleanup queue retries (SAVEPOINT_JOB_*). */
  jobs: Omit<WorkOptions, "onDead">;
  /** Records of Idempotency-Key requests: retries get the first answer. */
  idempotency: Idempotency;
}
