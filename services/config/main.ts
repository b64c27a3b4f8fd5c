import { readEnv } from "../../shared/env.ts";
import { createLogger } from "../../shared/log.ts";
import { openBus, openStore, stopOnSignal } from "../../shared/open.ts";
import { runConfig } from "./start.ts";

// The config service alone: copies share the `config` queue group.
const log = createLogger({ service: "config" });
const env = readEnv();
if (!env.NATS_URL) throw new Error("NATS_URL: required to run the config service on its own");
const bus = await openBus(env, "config", log);
const store = await openStore(env, "config");
await runConfig(bus, store, log);
log.info("config service ready");
stopOnSignal(log, [() => store.close(), () => bus.close()]);
