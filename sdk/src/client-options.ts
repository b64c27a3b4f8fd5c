import type { Clock } from "./clock.ts";
import type { FetchFn } from "./http.ts";
import type { Resolution } from "./merge.ts";
import type { RetryOptions } from "./retry.ts";
import type { StorageAdapter } from "./storage/adapter.ts";

/** What a game tells `createClient` / `openClient` (README, Options). */
export interface ClientOptions {
  /** Where the API is, e.g. `https://saves.example.com`. */
  baseUrl: string;
  runtimeKey: string;
  /** Where saves live on the device (default: memory, which a reload loses). */
  storage?: StorageAdapter;
  /** Keeps two games (or two players) on one storage apart. Default "savepoint". */
  namespace?: string;
  /** How a 409 is settled (README, Conflicts). Default: a three-way merge that keeps local where both sides changed a value. */
  resolve?: Resolution;
  /** Per slot id (`"accountData"` for the account data), overriding `resolve`. */
  resolveFor?: Record<string, Resolution>;
  /** Merges of one write that may conflict again before the engine reports an error. Default 3. */
  maxConflictRetries?: number;
  /** "latest" (default): saves between two syncs coalesce into one version. "all": each is its own version. */
  replay?: "latest" | "all";
  /** A forced sync inside `forceSyncCooldownSeconds` is "defer"red (default) or "refuse"d. */
  onCooldown?: "defer" | "refuse";
  /** Retries of one request (lost answers, 408, 429, 5xx). */
  retry?: RetryOptions;
  /** A request without an answer after this long is lost and retried, in ms (default 15000). */
  timeoutMs?: number;
  /** Backoff of the engine's retry of a failed sync, in ms (default 1000 up to 60000). */
  reconnectBackoff?: { baseMs?: number; maxMs?: number };
  clock?: Clock;
  fetch?: FetchFn;
  /** Listen to visibilitychange, pagehide, online and offline where they exist (default true). */
  browserLifecycle?: boolean;
  /** Label of this device's session on the player's device list. */
  deviceLabel?: string;
  /** How often the sync policy is read again while the game runs, in seconds (default 300; 0: only at start and foreground). */
  configRefreshSeconds?: number;
}

export interface Session {
  accountId: string;
  token: string;
}
