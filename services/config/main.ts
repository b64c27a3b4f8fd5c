import { runStandalone } from "../../shared/standalone.ts";
import { runConfig } from "./start.ts";

await runStandalone("config", (bus, store, _env, log) => runConfig(bus, store, log));
