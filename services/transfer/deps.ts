import type { IdempotentServiceDeps } from "../../shared/process/service-module.ts";
import type { Repo } from "./repo.ts";

/** What every transfer verb may use. */
export interface Deps extends IdempotentServiceDeps {
  repo: Repo;
  /** HMAC key of the stored code hashes. */
  secret: string;
}
