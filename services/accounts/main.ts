import { readEnv } from "../../shared/env.ts";
import { createLogger } from "../../shared/log.ts";
import { openBus, openStore, stopOnSignal } from "../../shared/open.ts";
import { loadPlans } from "../../shared/plans.ts";
import { runAccounts } from "./start.ts";

// The accounts service alone: copies share the `accounts` queue group and the cleanup work queue.
const log = createLogger({ service: "accounts" });
const env = readEnv();
if (!env.NATS_URL) throw new Error("NATS_URL: required to run the accounts service on its own");
const bus = await openBus(env, "accounts", log);
const store = await openStore(env, "accounts");
await runAccounts(bus, store, await loadPlans(env.SAVEPOINT_PLANS), log);
log.info("accounts service ready");
stopOnSignal(log, [() => store.close(), () => bus.close()]);
