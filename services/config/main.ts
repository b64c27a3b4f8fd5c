import { defaultPlanOf, loadPlans } from "../../shared/contract/plans.ts";
import { runStandalone } from "../../shared/process/standalone.ts";
import { runConfig } from "./start.ts";

await runStandalone("config", async (bus, store, env, log) =>
  runConfig(bus, store, await loadPlans(env.SAVEPOINT_PLANS), defaultPlanOf(env), log, env.SAVEPOINT_AUDIT_RETENTION_DAYS),
);
