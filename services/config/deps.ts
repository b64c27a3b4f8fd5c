import type { PlanName } from "../../shared/contract/plans.ts";
import type { ServiceDeps } from "../../shared/process/service-module.ts";
import type { AuditLog } from "./audit.ts";
import type { Repo } from "./repo.ts";

/** What every config verb may use. */
export interface Deps extends ServiceDeps {
  repo: Repo;
  /** The plan of a workspace created without one (`defaultPlanOf`). */
  defaultPlan: PlanName;
  /** The admin audit log, pruned past SAVEPOINT_AUDIT_RETENTION_DAYS. */
  audit: AuditLog;
}
