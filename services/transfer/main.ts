import { readEnv } from "../../shared/env.ts";
import { createLogger } from "../../shared/log.ts";
import { openBus, openStore, stopOnSignal } from "../../shared/open.ts";
import { runTransfer } from "./start.ts";

// The transfer service alone: copies share the `transfer` queue group and SAVEPOINT_TRANSFER_SECRET.
const log = createLogger({ service: "transfer" });
const env = readEnv();
if (!env.NATS_URL) throw new Error("NATS_URL: required to run the transfer service on its own");
const bus = await openBus(env, "transfer", log);
const store = await openStore(env, "transfer");
await runTransfer(bus, store, env, log);
log.info("transfer service ready");
stopOnSignal(log, [() => store.close(), () => bus.close()]);
