import { loadPlans } from "../../shared/contract/plans.ts";
import { runStandalone } from "../../shared/process/standalone.ts";
import { runAuthBridge } from "./start.ts";

await runStandalone("auth-bridge", async (bus, store, env, log) => runAuthBridge(bus, store, env, await loadPlans(env.SAVEPOINT_PLANS), log));
