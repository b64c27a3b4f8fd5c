import type { SavepointError } from "./errors.ts";
import type { JsonObject, RuntimeConfigResponse } from "./generated/schemas.ts";
import type { MergeContext } from "./merge.ts";

export type SyncState = "idle" | "dirty" | "syncing" | "offline" | "conflict" | "error";

/** A snapshot a game can show as a cloud icon. */
export interface Status {
  state: SyncState;
  /** Slots (and account data) with saves the server does not have yet. */
  pending: string[];
  lastSyncAt?: number;
  lastError?: SavepointError;
  /** Records whose newest save the server refused (too large, invalid, merges exhausted), by target. */
  refused?: Record<string, SavepointError>;
  /** True once the server refused this device's session: nothing syncs until a new sign-in. */
  stopped: boolean;
}

export interface ConflictEvent extends MergeContext {
  base: JsonObject;
  server: JsonObject;
  local: JsonObject;
  merged: JsonObject;
  serverVersion: number;
  /** 1 for the first conflict of this write, more when a merged write conflicted again. */
  attempt: number;
}

export interface Events {
  status: Status;
  saved: { target: string; seq: number };
  synced: { target: string; version: number; warnings?: string[] };
  /** The local copy changed from the server side (a pull or a merge): re-read it. */
  change: { target: string; data: JsonObject; slotInfo?: JsonObject };
  conflict: ConflictEvent;
  error: { target?: string; error: SavepointError };
  /** The server refused the session (revoked, expired, account deleted or suspended). */
  stopped: { error: SavepointError };
  config: RuntimeConfigResponse;
}

type Listener<T> = (value: T) => void;

export class Emitter {
  // `never`: each set holds the listeners of one event, whose value type its name gives.
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();
  on<K extends keyof Events>(name: K, listener: Listener<Events[K]>): () => void {
    const set = this.listeners.get(name) ?? new Set();
    this.listeners.set(name, set.add(listener));
    return () => void set.delete(listener);
  }
  emit<K extends keyof Events>(name: K, value: Events[K]): void {
    for (const l of this.listeners.get(name) ?? []) {
      try {
        (l as Listener<Events[K]>)(value);
      } catch (e) {
        // A game's listener that throws must not stop the sync engine.
        console.error("savepoint: a listener threw", e);
      }
    }
  }
}
