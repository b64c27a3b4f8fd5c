import { createNatsBus } from "../../shared/bus/nats.ts";
import { contractRoutes } from "../../shared/contract/routes.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { echo } from "./echo-answer.ts";

// The echo behind NATS for G2: the handler gateway-only.ts runs in-process, one bus hop away.
const bus = await createNatsBus({
  url: process.env.ECHO_NATS_URL!,
  name: "bench-echo",
  log: createLogger({ bench: "echo" }),
});
bus.serve("echo", contractRoutes.syncSlot.subject!, echo);
console.log("echo serving");
