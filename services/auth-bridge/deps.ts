import type { Bus } from "../../shared/bus/port.ts";
import type { PlanCatalog } from "../../shared/contract/plans.ts";
import type { Logger } from "../../shared/observe/log.ts";
import type { Idempotency } from "../../shared/serving/idempotency.ts";
import type { KeySets } from "./key-sets.ts";
import type { Repo } from "./repo.ts";

/** What every auth-bridge verb may use. `now` is injectable so tests can move time. */
export interface Deps {
  repo: Repo;
  bus: Bus;
  log: Logger;
  plans: PlanCatalog;
  keySets: KeySets;
  now: () => Date;
  /** Records of Idempotency-Key requests: retries get the first answer. */
  idempotency: Idempotency;
  /** HMAC key of the link ids (provider and subject). */
  secret: string;
}
