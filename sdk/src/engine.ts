import type { Clock } from "./clock.ts";
import { isRetryable, refusesSession, SavepointError } from "./errors.ts";
import type { Emitter, Status, SyncState } from "./events.ts";
import type { SyncPolicy } from "./generated/schemas.ts";
import { isDirty, type LocalRecord, type LocalStore } from "./local-store.ts";
import { decide, type PolicyEvent, type PolicyState } from "./policy-decision.ts";
import { type PushDeps, pushRecord } from "./push.ts";
import { allHeld, type EngineState, type SyncResult, summarize, targetResult } from "./sync-result.ts";

const newestSeq = (r: LocalRecord) => r.snapshots.at(-1)?.seq ?? 0;
/** @deprecated The answer of `sync()` is a `SyncResult` (README, Sync results). */
export type ForceResult = SyncResult;
const asError = (e: unknown) =>
  e instanceof SavepointError ? e : new SavepointError("client_error", String((e as Error)?.message ?? e), 0);

export interface EngineDeps extends PushDeps {
  store: LocalStore;
  events: Emitter;
  clock: Clock;
  policy: () => SyncPolicy;
  /** What a forced sync inside the cooldown does (README, Policy flags). */
  onCooldown: "defer" | "refuse";
  /** Backoff of the engine's own retry after a failed sync (syncOnReconnect), in ms. */
  retryBaseMs: number;
  retryMaxMs: number;
  random: () => number;
  hasSession: () => boolean;
}

/**
 * Runs what policy-decision.ts decides: pushes never more often than `minRemoteSyncIntervalSeconds` (saves
 * in between coalesce), at once when forced outside the cooldown, on background, and again after a failure
 * when `syncOnReconnect` allows it.
 */
export class SyncEngine {
  private timer: unknown;
  private timerAt = Infinity;
  private lastRemoteSyncAt = -Infinity;
  private lastForcedAt = -Infinity;
  private running: Promise<void> | undefined;
  private again = false;
  private failures = 0;
  private state: SyncState = "idle";
  private lastError: SavepointError | undefined;
  private lastSyncAt: number | undefined;
  private stopped = false;
  private online = true;
  private disposed = false;
  /** Records the server refused for good (413, 400, merges exhausted), until the game saves them again. */
  private readonly blocked = new Map<string, { seq: number; error: SavepointError }>();

  constructor(private readonly d: EngineDeps) {}

  status(): Status {
    return {
      state: this.state,
      pending: this.d.store
        .all()
        .filter((r) => isDirty(r) || r.inflight)
        .map((r) => r.target),
      ...(this.blocked.size ? { refused: Object.fromEntries([...this.blocked].map(([t, b]) => [t, b.error])) } : {}),
      ...(this.lastSyncAt !== undefined ? { lastSyncAt: this.lastSyncAt } : {}),
      ...(this.lastError ? { lastError: this.lastError } : {}),
      stopped: this.stopped,
    };
  }

  private setState(state: SyncState) {
    this.state = state;
    this.d.events.emit("status", this.status());
  }
  private pushable = (r: LocalRecord) =>
    (isDirty(r) || r.inflight !== undefined) && this.blocked.get(r.target)?.seq !== newestSeq(r);
  private pending = () => this.d.store.all().some(this.pushable);
  /** What the policy says to do on `event` now: every decision of the engine comes from policy-decision.ts. */
  decide(event: PolicyEvent, extra: Partial<PolicyState> = {}) {
    const known = (ms: number) => (Number.isFinite(ms) ? ms : undefined);
    const state = {
      lastRemoteSyncAt: known(this.lastRemoteSyncAt),
      lastForcedAt: known(this.lastForcedAt),
      pending: this.pending(),
      networkDown: !this.online,
      ...extra,
    };
    const { onCooldown, retryBaseMs, retryMaxMs, random } = this.d;
    const options = { onCooldown, retryBaseMs, retryMaxMs, random };
    return decide(
      this.d.policy(),
      { ...state, hasSession: this.d.hasSession(), stopped: this.stopped },
      event,
      this.d.clock.now(),
      options,
    );
  }

  /** A save happened: the engine pushes when the interval allows. */
  saved(): void {
    if (this.state === "idle" || this.state === "error" || this.state === "conflict")
      this.setState(this.stopped ? "error" : "dirty");
    this.schedule();
  }

  /** Plans the next push at the earliest moment the policy allows. */
  schedule(at?: number): void {
    const next = this.decide("saved");
    if (this.disposed || next.action === "nothing") return;
    const due = at ?? (next.action === "defer" ? next.until : this.d.clock.now());
    if (due >= this.timerAt) return;
    if (this.timer !== undefined) this.d.clock.clearTimeout(this.timer);
    this.timerAt = due;
    this.timer = this.d.clock.setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      void this.flush().catch(() => {});
    }, due - this.d.clock.now());
  }

  /**
   * `sync()`: pushes now if the interval allows (`force`: ignores the interval, not the cooldown), and
   * answers what happened to every change pending at the call (README, Sync results).
   */
  async sync(force: boolean): Promise<SyncResult> {
    const atCall = this.d.store
      .all()
      .filter((r) => isDirty(r) || r.inflight)
      .map((r) => ({ target: r.target, seq: newestSeq(r) }));
    const now = this.d.clock.now();
    const targets = atCall.map((t) => t.target);
    const decision = this.decide(force ? "force" : "sync");
    if (decision.action === "refuse") {
      const { retryAt } = decision;
      const wait = (retryAt - now) / 1000;
      const error = new SavepointError(
        "sync_cooldown",
        `a forced sync is allowed again in ${wait} s (forceSyncCooldownSeconds)`,
        0,
        { retryAt },
        wait,
      );
      return allHeld(targets, { status: "refused", error, retryAt });
    }
    if (decision.action === "defer") return this.held(atCall, decision.until);
    if (force) this.lastForcedAt = now;
    await this.flush();
    return this.outcome(atCall);
  }

  /** Not sent now: the push is planned for `retryAt` and the answer says so, or why it cannot be. */
  private held(atCall: { target: string; seq: number }[], retryAt: number): SyncResult {
    this.schedule(retryAt);
    return this.outcome(atCall, Math.min(retryAt, this.timerAt));
  }

  private outcome(atCall: { target: string; seq: number }[], retryAt = this.timerAt): SyncResult {
    const engine: EngineState = {
      stopped: this.stopped,
      hasSession: this.d.hasSession(),
      offline: this.state === "offline",
      ...(this.lastError ? { lastError: this.lastError } : {}),
      retryAt,
    };
    const results = atCall.map(({ target, seq }) => {
      const r = this.d.store.get(target);
      const blocked = this.blocked.get(target);
      return [
        target,
        targetResult(
          {
            target,
            seqAtCall: seq,
            syncedSeq: r?.syncedSeq ?? 0,
            ...(r?.inflight ? { inflightSeq: r.inflight.seq } : {}),
            ...(r?.base ? { version: r.base.version } : {}),
            ...(r && blocked && blocked.seq === newestSeq(r) ? { refused: blocked.error } : {}),
          },
          engine,
        ),
      ] as const;
    });
    return summarize(Object.fromEntries(results));
  }

  /** Pushes every pending record now; concurrent calls share one run (and one more if saves came meanwhile). */
  flush(options: { keepalive?: boolean } = {}): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const run = async () => {
      do {
        this.again = false;
        await this.pushAll(options.keepalive ?? false);
      } while (this.again && !this.stopped && this.state !== "offline" && this.state !== "error");
    };
    this.running = run().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pushAll(keepalive: boolean): Promise<void> {
    if (this.stopped || !this.d.hasSession() || !this.pending()) return;
    if (this.timer !== undefined) {
      this.d.clock.clearTimeout(this.timer);
      this.timer = undefined;
      this.timerAt = Infinity;
    }
    this.lastRemoteSyncAt = this.d.clock.now();
    this.setState("syncing");
    let refused: SavepointError | undefined;
    try {
      for (const r of this.d.store.all()) {
        if (!this.pushable(r)) continue;
        try {
          await pushRecord(this.d, r, keepalive);
        } catch (e) {
          const error = asError(e);
          if (refusesSession(error) || isRetryable(error)) throw error;
          // The server will refuse this save again: report it, keep it, and let the other records sync. The
          // refused write changed nothing, so the next save goes with a new write instead of repeating it.
          this.blocked.set(r.target, { seq: newestSeq(r), error });
          r.inflight = undefined;
          await this.d.store.put(r);
          this.d.events.emit("error", { target: r.target, error });
          refused = error;
        }
      }
      this.failures = 0;
      // An answer came: whatever the platform said, the network is there.
      this.online = true;
      this.lastError = refused;
      this.lastSyncAt = this.d.clock.now();
      this.setState(refused ? (refused.code === "conflict" ? "conflict" : "error") : this.pending() ? "dirty" : "idle");
      this.schedule();
    } catch (e) {
      this.failed(e);
    }
  }

  private failed(e: unknown) {
    const error = asError(e);
    this.lastError = error;
    if (refusesSession(error)) {
      // Looping on a refused session only burns requests: stop until the game signs in again.
      this.stopped = true;
      this.setState("error");
      this.d.events.emit("stopped", { error });
      return;
    }
    this.d.events.emit("error", { error });
    this.setState("offline");
    // A failed sync is retried on the syncOnReconnect flag's terms: with backoff, or on the next trigger.
    const next = this.decide("failed", { failures: this.failures + 1, retryAfterSeconds: error.retryAfterSeconds });
    if (next.action !== "defer") return;
    this.failures++;
    this.schedule(next.until);
  }

  /** Resolves when no push is running (one that starts meanwhile is awaited too). */
  async settled(): Promise<void> {
    while (this.running) await this.running.catch(() => {});
  }

  /** The app goes to the background: the last saves leave now (keepalive), if the policy says so. */
  background(): Promise<void> {
    return this.decide("background").action === "push" ? this.flush({ keepalive: true }) : Promise.resolve();
  }

  /** The network is back (the `online` event). */
  reconnected(): Promise<void> {
    this.online = true;
    return this.decide("reconnected").action === "push" ? this.flush() : Promise.resolve();
  }
  disconnected(): void {
    this.online = false;
    this.setState("offline");
  }

  /** A new policy: the next push is planned on its interval (a backoff after a failure stays as it is). */
  replan(): void {
    if (this.state !== "offline" && this.timer !== undefined) {
      this.d.clock.clearTimeout(this.timer);
      this.timer = undefined;
      this.timerAt = Infinity;
    }
    this.schedule();
  }

  /** A new session (sign-in, transfer): a stopped engine may run again. */
  resume(): void {
    this.stopped = false;
    this.lastError = undefined;
    this.setState(this.pending() ? "dirty" : "idle");
    this.schedule();
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) this.d.clock.clearTimeout(this.timer);
  }
}
