import { join } from "node:path";
import { createLocalBus } from "../bus/local.ts";
import { metered } from "../bus/metered.ts";
import { createNatsBus } from "../bus/nats.ts";
import type { Bus } from "../bus/port.ts";
import type { Logger } from "../observe/log.ts";
import { createMongoStore } from "../store/mongo.ts";
import { NotReplicaSetMemberError } from "../store/mongo-replica-set.ts";
import type { Store } from "../store/port.ts";
import { migrate } from "../store/schema.ts";
import { createSqliteStore } from "../store/sqlite.ts";
import type { Env } from "./env.ts";

/**
 * Retries `open` until it succeeds or SAVEPOINT_START_TIMEOUT_MS has passed: in a fresh deployment
 * the bus or the database may come up after the service. A setting the server refuses (too small a
 * max_payload, a replica set it is not in) fails at once.
 */
async function whenReachable<T>(what: string, env: Env, log: Logger, open: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + env.SAVEPOINT_START_TIMEOUT_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await open();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (/max_payload/.test(message) || err instanceof NotReplicaSetMemberError || Date.now() >= deadline) throw err;
      if (attempt === 1) log.warn(`waiting for ${what}`, { err: message });
      await Bun.sleep(Math.min(250 * attempt, 2_000));
    }
  }
}

/** NATS when NATS_URL is set, else the in-process bus: configuration, never a code fork. */
export async function openBus(env: Env, name: string, log: Logger): Promise<Bus> {
  const url = env.NATS_URL;
  if (!url) return metered(createLocalBus(log));
  return metered(
    await whenReachable("NATS", env, log, () =>
      createNatsBus({ url, name, log, replicas: env.SAVEPOINT_NATS_REPLICAS }),
    ),
  );
}

/**
 * MongoDB when MONGODB_URL is set, else one SQLite file per service under SAVEPOINT_DATA_DIR; brought up
 * to this server's schema before anything reads it, or refused when a newer server wrote it (docs/operating.md#upgrading).
 */
export async function openStore(env: Env, service: string, log: Logger): Promise<Store> {
  const url = env.MONGODB_URL;
  const file = join(env.SAVEPOINT_DATA_DIR, `${service}.sqlite`);
  const store = !url
    ? createSqliteStore(file)
    : await whenReachable("MongoDB", env, log, async () => {
        const store = await createMongoStore(url, env.MONGODB_DB);
        await store.ping();
        return store;
      });
  const where = url ? `MongoDB database ${env.MONGODB_DB}` : `SQLite ${file}`;
  try {
    const { from, to } = await migrate(store, service, where);
    if (from !== to) log.info("store schema migrated", { service, store: where, from, to });
  } catch (err) {
    await store.close().catch(() => {});
    throw err;
  }
  return store;
}

/** Runs `stops` in order on SIGTERM or SIGINT, then exits 0. */
export function stopOnSignal(
  log: Logger,
  stops: ((signal: "SIGTERM" | "SIGINT") => Promise<unknown> | unknown)[],
): void {
  let stopping = false;
  const stop = async (signal: "SIGTERM" | "SIGINT") => {
    if (stopping) return;
    stopping = true;
    log.info("stopping", { signal });
    for (const s of stops) await Promise.resolve(s(signal)).catch((err) => log.error("stop failed", { err }));
    log.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}
