import { join } from "node:path";
import type { Env } from "./env.ts";
import type { Logger } from "./log.ts";
import { createLocalBus } from "./bus/local.ts";
import { createNatsBus } from "./bus/nats.ts";
import type { Bus } from "./bus/port.ts";
import { createMongoStore } from "./store/mongo.ts";
import type { Store } from "./store/port.ts";
import { createSqliteStore } from "./store/sqlite.ts";

/** NATS when NATS_URL is set, else the in-process bus: configuration, never a code fork. */
export async function openBus(env: Env, name: string, log: Logger): Promise<Bus> {
  return env.NATS_URL ? createNatsBus({ url: env.NATS_URL, name, log }) : createLocalBus(log);
}

/** MongoDB when MONGODB_URL is set, else one SQLite file per service under SAVEPOINT_DATA_DIR. */
export async function openStore(env: Env, service: string): Promise<Store> {
  return env.MONGODB_URL
    ? createMongoStore(env.MONGODB_URL, env.MONGODB_DB)
    : createSqliteStore(join(env.SAVEPOINT_DATA_DIR, `${service}.sqlite`));
}

/** Runs `stops` in reverse order on SIGTERM or SIGINT, then exits. */
export function stopOnSignal(log: Logger, stops: (() => Promise<unknown> | unknown)[]): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("stopping", { signal });
    for (const s of [...stops].reverse()) await Promise.resolve(s()).catch((err) => log.error("stop failed", { err }));
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}
