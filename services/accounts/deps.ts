import type { WorkOptions } from "../../shared/bus/port.ts";
import type { IdempotentServiceDeps } from "../../shared/process/service-module.ts";
import type { Repo } from "./repo.ts";

/** What every accounts verb may use. */
export interface Deps extends IdempotentServiceDeps {
  repo: Repo;
  /** How the cleanup queue retries (SAVEPOINT_JOB_*). */
  jobs: Omit<WorkOptions, "onDead">;
}
