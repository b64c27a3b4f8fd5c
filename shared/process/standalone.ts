import type { Bus } from "../bus/port.ts";
import { createLogger, type Logger } from "../observe/log.ts";
import type { Store } from "../store/port.ts";
import { type Env, readEnv } from "./env.ts";
import { openBus, openStore, stopOnSignal } from "./open.ts";
import { serveOps } from "./ops-server.ts";
import { checkOwnReadiness, serveReadiness } from "./readiness.ts";

/**
 * Runs a process's start-up. A failure there (a bad setting, a bus or store out of reach, a plan
 * catalog the bus cannot carry) is one line naming the cause and exit code 1, not a stack trace.
 */
export async function startOrExit(name: string, start: () => Promise<void>): Promise<void> {
  try {
    await start();
  } catch (err) {
    process.stderr.write(`${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}

/**
 * A service alone, for the distributed deployment: its own bus connection (copies share its queue
 * group) and store, both waited for at start, its operator port when SAVEPOINT_METRICS_PORT is set,
 * and on SIGTERM a drain: no new requests, those in flight answered, then exit 0.
 */
export function runStandalone(
  name: string,
  run: (bus: Bus, store: Store, env: Env, log: Logger) => Promise<unknown>,
): Promise<void> {
  return startOrExit(name, async () => {
    const log = createLogger({ service: name });
    const env = readEnv();
    if (!env.NATS_URL) throw new Error(`NATS_URL: required to run the ${name} service on its own`);
    const bus = await openBus(env, name, log);
    const store = await openStore(env, name, log);
    await run(bus, store, env, log);
    serveReadiness(bus, name, store);
    let stopping = false;
    const readiness = async () => ({
      ...(await checkOwnReadiness(bus, store)),
      ...(stopping ? { ready: false, draining: true } : {}),
    });
    const ops =
      env.SAVEPOINT_METRICS_PORT === undefined ? undefined : serveOps(env.SAVEPOINT_METRICS_PORT, readiness, log);
    // Leaving the bus first lets the requests in flight finish and their replies go out; then the store.
    // Installed before "ready" is logged: a SIGTERM sent on that line drains instead of killing.
    stopOnSignal(log, [() => (stopping = true), () => bus.close(), () => store.close(), () => ops?.stop()]);
    log.info(`${name} service ready`);
  });
}
