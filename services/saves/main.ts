import { readEnv } from "../../shared/env.ts";
import { createLogger } from "../../shared/log.ts";
import { openBus, openStore, stopOnSignal } from "../../shared/open.ts";
import { runSaves } from "./start.ts";

// The saves service alone: copies share the `saves` queue group.
const log = createLogger({ service: "saves" });
const env = readEnv();
if (!env.NATS_URL) throw new Error("NATS_URL: required to run the saves service on its own");
const bus = await openBus(env, "saves", log);
const store = await openStore(env, "saves");
await runSaves(bus, store, log);
log.info("saves service ready");
stopOnSignal(log, [() => store.close(), () => bus.close()]);
