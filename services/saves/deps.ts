import type { IdempotentServiceDeps } from "../../shared/process/service-module.ts";
import type { Repo } from "./repo.ts";

/** What every saves verb may use. */
export interface Deps extends IdempotentServiceDeps {
  repo: Repo;
}
