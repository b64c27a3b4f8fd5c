import type { Bus } from "../../shared/bus/port.ts";
import type { PlanCatalog } from "../../shared/contract/plans.ts";
import type { Logger } from "../../shared/observe/log.ts";
import type { Idempotency } from "../../shared/serving/idempotency.ts";
import type { Repo } from "./repo.ts";

/** What every saves verb may use. `now` is injectable so tests can move time. */
export interface Deps {
  repo: Repo;
  bus: Bus;
  /** The plan catalog: what restore points each plan keeps. */
  plans: PlanCatalog;
  log: Logger;
  now: () => Date;
  /** Records of Idempotency-Key requests: retries get the first answer. */
  idempotency: Idempotency;
}
