import { loadPlans } from "../../shared/plans.ts";
import { runStandalone } from "../../shared/standalone.ts";
import { runAccounts } from "./start.ts";

await runStandalone("accounts", async (bus, store, env, log) => runAccounts(bus, store, env, await loadPlans(env.SAVEPOINT_PLANS), log));
