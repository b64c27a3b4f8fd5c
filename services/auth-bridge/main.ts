import { loadPlans } from "../../shared/plans.ts";
import { runStandalone } from "../../shared/standalone.ts";
import { runAuthBridge } from "./start.ts";

await runStandalone("auth-bridge", async (bus, store, env, log) => runAuthBridge(bus, store, env, await loadPlans(env.SAVEPOINT_PLANS), log));
