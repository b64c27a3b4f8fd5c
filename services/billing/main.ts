import { readEnv } from "../../shared/env.ts";
import { createLogger } from "../../shared/log.ts";
import { openBus, openStore, stopOnSignal } from "../../shared/open.ts";
import { runBilling } from "./start.ts";

// The billing service alone: copies share the `billing` queue group and one store, so each Stripe
// event is applied once and usage totals are one count across every copy.
const log = createLogger({ service: "billing" });
const env = readEnv();
if (!env.NATS_URL) throw new Error("NATS_URL: required to run the billing service on its own");
const bus = await openBus(env, "billing", log);
const store = await openStore(env, "billing");
await runBilling(bus, store, env, log);
log.info("billing service ready");
stopOnSignal(log, [() => store.close(), () => bus.close()]);
