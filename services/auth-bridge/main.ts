import { readEnv } from "../../shared/env.ts";
import { createLogger } from "../../shared/log.ts";
import { openBus, openStore, stopOnSignal } from "../../shared/open.ts";
import { loadPlans } from "../../shared/plans.ts";
import { runAuthBridge } from "./start.ts";

// The auth bridge alone: copies share the `auth-bridge` queue group and SAVEPOINT_LINK_SECRET.
const log = createLogger({ service: "auth-bridge" });
const env = readEnv();
if (!env.NATS_URL) throw new Error("NATS_URL: required to run the auth bridge on its own");
const bus = await openBus(env, "auth-bridge", log);
const store = await openStore(env, "auth-bridge");
await runAuthBridge(bus, store, env, await loadPlans(env.SAVEPOINT_PLANS), log);
log.info("auth bridge ready");
stopOnSignal(log, [() => store.close(), () => bus.close()]);
