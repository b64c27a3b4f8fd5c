import { loadPlans } from "../../shared/contract/plans.ts";
import { runStandalone } from "../../shared/process/standalone.ts";
import { runAccounts } from "./start.ts";

await runStandalone("accounts", async (bus, store, env, log) => runAccounts(bus, store, env, await loadPlans(env.SAVEPOINT_PLANS), log));
