import { loadPlans } from "../shared/contract/plans.ts";
import { contextFor } from "../shared/process/service-module.ts";
import { runStandalone } from "../shared/process/standalone.ts";
import { isServiceName, loadService, serviceNames } from "./registry.ts";

// `bun services/standalone.ts <name>`: one bus service alone, for the distributed deployment (README,
// Running distributed). Any service in services/registry.ts, so a new one needs no entry point of its own.
const name = process.argv[2] ?? "";
if (!isServiceName(name)) {
  process.stderr.write(`usage: bun services/standalone.ts <service>, one of: ${serviceNames.join(", ")}\n`);
  process.exit(2);
}
const service = await loadService(name);
await runStandalone(name, async (bus, store, env, log) =>
  service.start(
    contextFor(name, { bus, store, env, plans: await loadPlans(env.SAVEPOINT_PLANS), log, now: () => new Date() }),
  ),
);
