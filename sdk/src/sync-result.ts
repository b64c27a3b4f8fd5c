import { SavepointError } from "./errors.ts";

/**
 * What happened to one record's changes that were pending when `sync()` was called (README, Sync results).
 * - `synced`: the server acknowledged them (with a merge, if another device wrote first); `version` is its version.
 * - `deferred`: the policy holds them until `retryAt` (the interval, or a forced sync's cooldown); kept here.
 * - `offline`: no answer came; kept here, tried again at `retryAt` (or on the next trigger when absent).
 * - `refused`: the server (or the cooldown, with `onCooldown: "refuse"`) said no; `error` says why; kept here.
 * - `conflict`: the merges ran out (`maxConflictRetries`); kept here, the next save tries again.
 */
export type TargetResult =
  | { status: "synced"; version: number }
  | { status: "deferred"; retryAt?: number }
  | { status: "offline"; error: SavepointError; retryAt?: number }
  | { status: "refused"; error: SavepointError; retryAt?: number }
  | { status: "conflict"; error: SavepointError };

export type SyncStatus = TargetResult["status"];

/**
 * The answer of `sync()`: one result per record that had changes pending when it was called (slot ids, and
 * `"accountData"`), and the overall status: `synced` only when every one of them is synced (or none was
 * pending); else the most serious of theirs, `refused` > `conflict` > `offline` > `deferred`. `retryAt` is
 * the earliest of the targets' own.
 */
export interface SyncResult {
  status: SyncStatus;
  targets: Record<string, TargetResult>;
  retryAt?: number;
}

/** One record as the engine left it: the newest change pending at the call, and what is known now. */
export interface TargetState {
  target: string;
  /** Seq of the newest local change when sync() was called. */
  seqAtCall: number;
  syncedSeq: number;
  /** Seq of a write begun but not acknowledged, if any. */
  inflightSeq?: number;
  /** The server's version the record is on. */
  version?: number;
  /** The server refused this record's newest change for good (or its merges ran out). */
  refused?: SavepointError;
}

/** The engine as it is when the answer is made. */
export interface EngineState {
  /** The server refused the session: nothing is sent until a new sign-in. */
  stopped: boolean;
  hasSession: boolean;
  offline: boolean;
  lastError?: SavepointError;
  /** When the engine plans its next push, if it does. */
  retryAt?: number;
}

const noSession = () =>
  new SavepointError("unauthorized", "this device has no account: create one, sign in or attach a transfer code", 0);
const at = (retryAt: number | undefined) => (retryAt !== undefined && Number.isFinite(retryAt) ? { retryAt } : {});

/** A record's result, from its state and the engine's. */
export function targetResult(t: TargetState, e: EngineState): TargetResult {
  const acknowledged = t.syncedSeq >= t.seqAtCall && !(t.inflightSeq !== undefined && t.inflightSeq <= t.seqAtCall);
  if (acknowledged && t.version !== undefined) return { status: "synced", version: t.version };
  if (t.refused)
    return t.refused.code === "conflict"
      ? { status: "conflict", error: t.refused }
      : { status: "refused", error: t.refused };
  if (e.stopped) return { status: "refused", error: e.lastError ?? noSession() };
  if (!e.hasSession) return { status: "refused", error: noSession() };
  if (e.offline)
    return {
      status: "offline",
      error: e.lastError ?? new SavepointError("network_error", "offline", 0),
      ...at(e.retryAt),
    };
  return { status: "deferred", ...at(e.retryAt) };
}

const rank: Record<SyncStatus, number> = { synced: 0, deferred: 1, offline: 2, conflict: 3, refused: 4 };

/** The overall answer from the targets' results. */
export function summarize(targets: Record<string, TargetResult>): SyncResult {
  const results = Object.values(targets);
  const status = results.reduce<SyncStatus>((worst, r) => (rank[r.status] > rank[worst] ? r.status : worst), "synced");
  const times = results.flatMap((r) => ("retryAt" in r && r.retryAt !== undefined ? [r.retryAt] : []));
  return { status, ...(times.length ? { retryAt: Math.min(...times) } : {}), targets };
}

/** Every target with the same result: a sync the policy held back before anything was sent. */
export function allHeld(targets: string[], result: TargetResult): SyncResult {
  return summarize(Object.fromEntries(targets.map((t) => [t, result])));
}
