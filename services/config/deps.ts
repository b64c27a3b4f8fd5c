import type { Bus } from "../../shared/bus/port.ts";
import type { PlanCatalog, PlanName } from "../../shared/contract/plans.ts";
import type { Logger } from "../../shared/observe/log.ts";
import type { Repo } from "./repo.ts";

export interface Deps {
  repo: Repo;
  bus: Bus;
  log: Logger;
  plans: PlanCatalog;
  /** The plan of a workspace created without one (`defaultPlanOf`). */
  defaultPlan: PlanName;
  now: () => Date;
}
