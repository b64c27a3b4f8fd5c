import { loadPlans } from "../../shared/contract/plans.ts";
import { runStandalone } from "../../shared/process/standalone.ts";
import { runSaves } from "./start.ts";

await runStandalone("saves", async (bus, store, env, log) => runSaves(bus, store, await loadPlans(env.SAVEPOINT_PLANS), log));
