import { runStandalone } from "../../shared/process/standalone.ts";
import { runTransfer } from "./start.ts";

await runStandalone("transfer", (bus, store, env, log) => runTransfer(bus, store, env, log));
