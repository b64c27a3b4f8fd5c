import type { Bus } from "../../shared/bus/port.ts";
import type { Logger } from "../../shared/log.ts";
import type { PlanCatalog } from "../../shared/plans.ts";
import type { Repo } from "./repo.ts";

/** What every accounts verb may use. `now` is injectable so tests can move time. */
export interface Deps {
  repo: Repo;
  bus: Bus;
  plans: PlanCatalog;
  log: Logger;
  now: () => Date;
}
