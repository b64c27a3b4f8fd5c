import type { IdempotentServiceDeps } from "../../shared/process/service-module.ts";
import type { KeySets } from "./key-sets.ts";
import type { Repo } from "./repo.ts";

/** What every auth-bridge verb may use. */
export interface Deps extends IdempotentServiceDeps {
  repo: Repo;
  keySets: KeySets;
  /** HMAC key of the link ids (provider and subject). */
  secret: string;
}
