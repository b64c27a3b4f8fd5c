import type { ClientOptions } from "./client-options.ts";
import type { Clock } from "./clock.ts";
import type { RuntimeConfig } from "./config.ts";
import { pollConfig } from "./config-poll.ts";
import type { SyncEngine } from "./engine.ts";
import type { SavepointError } from "./errors.ts";
import type { Emitter } from "./events.ts";
import { attachBrowserLifecycle } from "./lifecycle.ts";

export interface BackgroundDeps {
  options: ClientOptions;
  clock: Clock;
  config: RuntimeConfig;
  engine: SyncEngine;
  events: Emitter;
  background: () => Promise<void>;
  foreground: () => Promise<void>;
}

/**
 * What a started client runs beside the game: the browser's lifecycle events, the policy read at start and
 * the config poll. Returns how to stop each, and the policy read to wait for.
 */
export function startBackgroundWork(d: BackgroundDeps) {
  const detach =
    d.options.browserLifecycle === false
      ? () => {}
      : attachBrowserLifecycle({
          background: () => void d.background(),
          foreground: () => void d.foreground(),
          online: () => void d.engine.reconnected(),
          offline: () => d.engine.disconnected(),
        });
  // Offline, a game still saves at once: the policy is refreshed beside, from the cached copy until then.
  const configRefresh = d.config.refresh().then(
    () => d.engine.schedule(),
    (e) => d.events.emit("error", { error: e as SavepointError }),
  );
  d.engine.schedule();
  const stopPolling = pollConfig(d.clock, (d.options.configRefreshSeconds ?? 300) * 1000, () => d.config.refresh());
  return { detach, configRefresh, stopPolling };
}
