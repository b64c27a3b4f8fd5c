import { SavepointApi } from "./api.ts";
import type { ClientOptions, Session } from "./client-options.ts";
import { type Clock, systemClock } from "./clock.ts";
import { RuntimeConfig } from "./config.ts";
import type { LocalSaveDeps } from "./device-saves.ts";
import { SyncEngine } from "./engine.ts";
import type { Emitter } from "./events.ts";
import { LocalStore } from "./local-store.ts";
import { mergeRules, type Resolution } from "./merge.ts";
import { ServerClock } from "./server-clock.ts";
import { memoryStorage } from "./storage/adapter.ts";

const defaultResolution: Resolution = mergeRules({}, "local");

/** What the client reads of itself while its parts run: the session, and whether this tab pushes. */
export interface ClientState {
  session: () => Session | undefined;
  hasSession: () => boolean;
}

/**
 * The client's parts, wired from its options: the local store, the server's clock as the device estimates it,
 * the API, the runtime config and the sync engine. One place says which option reaches which part.
 */
export function clientParts(options: ClientOptions, events: Emitter, state: ClientState) {
  const clock: Clock = options.clock ?? systemClock;
  const { baseUrl, runtimeKey, fetch, retry, timeoutMs } = options;
  const store = new LocalStore(options.storage ?? memoryStorage(), options.namespace ?? "savepoint");
  const serverClock = new ServerClock(clock, (offset) => store.setValue("clockOffset", offset));
  const onDate = (date: string | null, sentAt: number, receivedAt: number) =>
    serverClock.observe(date, sentAt, receivedAt);
  const api = new SavepointApi({ baseUrl, runtimeKey, fetch, clock, retry, timeoutMs, session: state.session, onDate });
  const config: RuntimeConfig = new RuntimeConfig(api, store, events, () => engine.replan());
  const engine: SyncEngine = new SyncEngine({
    api,
    store,
    clock,
    serverNow: () => serverClock.now(),
    events,
    policy: () => config.policy,
    resolution: (target) => options.resolveFor?.[target] ?? options.resolve ?? defaultResolution,
    maxConflictRetries: options.maxConflictRetries ?? 3,
    maxSnapshots: () => config.policy.maxQueuedLocalSnapshots,
    replay: options.replay ?? "latest",
    onCooldown: options.onCooldown ?? "defer",
    retryBaseMs: options.reconnectBackoff?.baseMs ?? 1000,
    retryMaxMs: options.reconnectBackoff?.maxMs ?? 60_000,
    random: options.retry?.random ?? Math.random,
    hasSession: state.hasSession,
  });
  const saves: LocalSaveDeps = {
    store,
    events,
    serverNow: () => serverClock.now(),
    maxSnapshots: () => config.policy.maxQueuedLocalSnapshots,
    saved: () => engine.saved(),
  };
  return { clock, store, serverClock, api, config, engine, saves };
}
