import { runStandalone } from "../../shared/standalone.ts";
import { runSaves } from "./start.ts";

await runStandalone("saves", (bus, store, _env, log) => runSaves(bus, store, log));
