import { runStandalone } from "../../shared/process/standalone.ts";
import { runBilling } from "./start.ts";

// Copies share one store, so each Stripe event is applied once and usage totals are one count.
await runStandalone("billing", (bus, store, env, log) => runBilling(bus, store, env, log));
