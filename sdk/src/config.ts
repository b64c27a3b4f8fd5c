import type { SavepointApi } from "./api.ts";
import type { Emitter } from "./events.ts";
import { defaultSyncPolicy as serverDefaults } from "./generated/defaults.ts";
import type { GameConfig, RuntimeConfigResponse, SyncPolicy } from "./generated/schemas.ts";
import type { LocalStore } from "./local-store.ts";

/** The server's defaults, generated from its contract; used until route 2 has answered once. */
export const defaultSyncPolicy: SyncPolicy = serverDefaults;

interface Cached {
  syncPolicy: SyncPolicy;
  gameConfig?: GameConfig;
  etag?: string;
}

/** The sync policy and game config, cached on the device and refreshed with gameConfigVersion and ETag. */
export class RuntimeConfig {
  private cached: Cached = { syncPolicy: defaultSyncPolicy };
  private reading: Promise<unknown> | undefined;
  private announced = false;
  constructor(
    private readonly api: SavepointApi,
    private readonly store: LocalStore,
    private readonly events: Emitter,
    /** A read or an account envelope changed the sync policy: the engine plans its next push on it. */
    private readonly onPolicyChange: () => void = () => {},
  ) {}

  /** Resolves when no read of route 2 is running (one that starts meanwhile is awaited too). */
  async settled(): Promise<void> {
    while (this.reading) await this.reading;
  }

  async load(): Promise<void> {
    this.cached = (await this.store.getValue<Cached>("config")) ?? this.cached;
  }
  get policy(): SyncPolicy {
    return this.cached.syncPolicy;
  }
  get gameConfig(): GameConfig | undefined {
    return this.cached.gameConfig;
  }

  /** Asks route 2 (with the ETag: 304 when nothing changed); an unchanged config keeps the cached data. */
  refresh(): Promise<RuntimeConfigResponse> {
    const before = JSON.stringify(this.cached.syncPolicy);
    const read = this.read().then((current) => {
      if (JSON.stringify(current.syncPolicy) !== before) this.onPolicyChange();
      return current;
    });
    const tracked: Promise<unknown> = read
      .catch(() => {})
      .finally(() => {
        if (this.reading === tracked) this.reading = undefined;
      });
    this.reading = tracked;
    return read;
  }

  private async read(): Promise<RuntimeConfigResponse> {
    const version =
      this.cached.gameConfig?.enabled && this.cached.gameConfig.version >= 1
        ? this.cached.gameConfig.version
        : undefined;
    const answer = await this.api.runtimeConfig(version, this.cached.etag);
    if (!answer.notModified && answer.config) {
      const incoming = answer.config.gameConfig;
      const cached = this.cached.gameConfig;
      const gameConfig = incoming?.unchanged && cached ? { ...cached, ...incoming, data: cached.data } : incoming;
      this.cached = {
        syncPolicy: answer.config.syncPolicy,
        ...(gameConfig ? { gameConfig } : {}),
        ...(answer.etag ? { etag: answer.etag } : {}),
      };
      await this.store.setValue("config", this.cached);
    }
    const current = {
      syncPolicy: this.cached.syncPolicy,
      ...(this.cached.gameConfig ? { gameConfig: this.cached.gameConfig } : {}),
    };
    // Once per run (the cached copy counts), then only for a new answer: the timer's 304s are not news.
    if (!this.announced || !answer.notModified) this.events.emit("config", current);
    this.announced = true;
    return current;
  }

  /** A sync policy from an account envelope (routes 3, 4, 10) is as current as route 2's. */
  async adopt(policy: SyncPolicy | undefined): Promise<void> {
    if (!policy) return;
    const changed = JSON.stringify(policy) !== JSON.stringify(this.cached.syncPolicy);
    this.cached = { ...this.cached, syncPolicy: policy };
    await this.store.setValue("config", this.cached);
    if (changed) this.onPolicyChange();
  }
}
