import { AccountHelpers } from "./account-helpers.ts";
import { SavepointApi } from "./api.ts";
import { type Clock, systemClock } from "./clock.ts";
import { RuntimeConfig } from "./config.ts";
import { type ForceResult, SyncEngine } from "./engine.ts";
import type { SavepointError } from "./errors.ts";
import { Emitter, type Events, type Status } from "./events.ts";
import type { AccountEnvelopeResponse, CreateAccountRequest, JsonObject } from "./generated/schemas.ts";
import type { FetchFn } from "./http.ts";
import { assertJson } from "./json-check.ts";
import { attachBrowserLifecycle } from "./lifecycle.ts";
import { accountTarget, addSnapshot, currentOf, isDirty, LocalStore, type Snapshot } from "./local-store.ts";
import { mergeRules, type Resolution } from "./merge.ts";
import type { RetryOptions } from "./retry.ts";
import { type StorageAdapter, memoryStorage } from "./storage/adapter.ts";
import type { AnySlots, JsonFields, SlotId, SlotTypes } from "./typed-slots.ts";

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
}

export interface Session {
  accountId: string;
  token: string;
}

const defaultResolution: Resolution = mergeRules({}, "local");
const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/**
 * The game's side of Savepoint: local-first saves, synced on the server's policy (README, Quick start).
 * `S` declares each slot's data type, `A` the account data's (README, Typed saves).
 */
export class SavepointClient<S extends SlotTypes<S> = AnySlots, A extends JsonFields<A> = JsonObject> {
  readonly api: SavepointApi;
  readonly events = new Emitter();
  readonly store: LocalStore;
  readonly config: RuntimeConfig;
  readonly clock: Clock;
  /** Transfer codes, sign-in, devices, restore points. */
  readonly account: AccountHelpers = new AccountHelpers(this);
  private readonly engine: SyncEngine;
  private session: Session | undefined;
  private detach: () => void = () => {};
  private started: Promise<void> | undefined;
  private configRefresh: Promise<void> | undefined;

  constructor(readonly options: ClientOptions) {
    this.clock = options.clock ?? systemClock;
    const { baseUrl, runtimeKey, fetch, retry, timeoutMs } = options;
    this.api = new SavepointApi({ baseUrl, runtimeKey, fetch, clock: this.clock, retry, timeoutMs, session: () => this.session });
    this.store = new LocalStore(options.storage ?? memoryStorage(), options.namespace ?? "savepoint");
    this.config = new RuntimeConfig(this.api, this.store, this.events);
    this.engine = new SyncEngine({
      api: this.api,
      store: this.store,
      clock: this.clock,
      events: this.events,
      policy: () => this.config.policy,
      resolution: (target) => options.resolveFor?.[target] ?? options.resolve ?? defaultResolution,
      maxConflictRetries: options.maxConflictRetries ?? 3,
      maxSnapshots: () => this.config.policy.maxQueuedLocalSnapshots,
      replay: options.replay ?? "latest",
      onCooldown: options.onCooldown ?? "defer",
      retryBaseMs: options.reconnectBackoff?.baseMs ?? 1000,
      retryMaxMs: options.reconnectBackoff?.maxMs ?? 60_000,
      random: options.retry?.random ?? Math.random,
      hasSession: () => this.session !== undefined,
    });
  }

  /** Loads the device's saves and session, refreshes the policy, and pushes what is pending. Safe to call twice. */
  start(): Promise<void> {
    return (this.started ??= (async () => {
      await this.store.load();
      await this.config.load();
      this.session = await this.store.getValue<Session>("session");
      if (this.options.browserLifecycle !== false) {
        this.detach = attachBrowserLifecycle({
          background: () => void this.background(),
          foreground: () => void this.foreground(),
          online: () => void this.engine.reconnected(),
          offline: () => this.engine.disconnected(),
        });
      }
      // Offline, a game still saves at once: the policy is refreshed beside, from the cached copy until then.
      this.configRefresh = this.config.refresh().then(
        () => this.engine.schedule(),
        (e) => this.events.emit("error", { error: e as SavepointError }),
      );
      this.engine.schedule();
    })());
  }

  /** Resolves when the runtime config asked at start has answered (or failed). */
  async ready(): Promise<void> {
    await this.start();
    await this.configRefresh;
  }

  /** This device's account, if it has one. */
  get accountId(): string | undefined {
    return this.session?.accountId;
  }

  /** Creates an account for this device unless it has one; returns its id. */
  async ensureAccount(body: CreateAccountRequest = {}): Promise<string> {
    await this.ready();
    if (this.session) return this.session.accountId;
    const created = await this.api.createAccount(body);
    await this.adoptEnvelope(created);
    return created.accountId;
  }

  /** Makes an answer's session this device's, and its account state the local base. */
  async adoptEnvelope(e: Pick<AccountEnvelopeResponse, "accountId" | "accountSessionToken"> & Partial<AccountEnvelopeResponse>): Promise<void> {
    this.session = { accountId: e.accountId, token: e.accountSessionToken };
    await this.store.setValue("session", this.session);
    await this.config.adopt(e.syncPolicy);
    if (e.account) {
      const r = this.store.getOrCreate(accountTarget);
      if (!isDirty(r)) r.base = { version: e.account.version, data: e.account.accountData, updatedAt: this.clock.now() };
      await this.store.put(r);
    }
    this.engine.resume();
  }

  /** Forgets the local account, session and saves (after a sign-out or a confirmed transfer). */
  async resetLocal(): Promise<void> {
    await this.store.clear();
    this.session = undefined;
    await this.store.setValue("session", undefined);
  }

  /** Durable on the device when this resolves; the server gets it when the policy allows. */
  async save<K extends SlotId<S>, I extends JsonFields<I> = JsonObject>(slotId: K, data: S[K], slotInfo?: I): Promise<Snapshot<S[K]>> {
    return this.saveTarget(slotId, data as JsonObject, slotInfo as JsonObject | undefined) as Promise<Snapshot<never>>;
  }
  /** The account-wide data, saved like a slot. */
  async saveAccountData(data: A): Promise<Snapshot<A>> {
    return this.saveTarget(accountTarget, data as JsonObject, undefined) as Promise<Snapshot<never>>;
  }
  private async saveTarget(target: string, data: JsonObject, slotInfo: JsonObject | undefined): Promise<Snapshot> {
    // Refused before anything is written: the ring, the storage and the server keep the last good save.
    assertJson(target === accountTarget ? "accountData" : "data", data, { object: true });
    if (slotInfo !== undefined) assertJson("slotInfo", slotInfo, { object: true });
    await this.start();
    const r = this.store.getOrCreate(target);
    const s = addSnapshot(r, copy(data), slotInfo && copy(slotInfo), this.clock.now(), this.config.policy.maxQueuedLocalSnapshots);
    await this.store.put(r);
    this.events.emit("saved", { target, seq: s.seq });
    this.engine.saved();
    return s;
  }

  /** The slot's data as the device knows it (its newest save, else the server's last state). */
  load<K extends SlotId<S>>(slotId: K): S[K] | undefined {
    const s = this.store.get(slotId) && currentOf(this.store.get(slotId)!);
    return s && (copy(s.data) as S[K]);
  }
  slotInfo(slotId: string): JsonObject | undefined {
    const s = this.store.get(slotId) && currentOf(this.store.get(slotId)!);
    return s?.slotInfo && copy(s.slotInfo);
  }
  accountData(): A | undefined {
    const s = this.store.get(accountTarget) && currentOf(this.store.get(accountTarget)!);
    return s && (copy(s.data) as A);
  }
  /** Slot ids known on this device. */
  slots(): string[] {
    return this.store.all().map((r) => r.target).filter((t) => t !== accountTarget);
  }

  /** The ring of local saves of a slot, oldest first (`maxQueuedLocalSnapshots` of them). */
  localSnapshots<K extends SlotId<S>>(slotId: K): Snapshot<S[K]>[] {
    return copy(this.store.get(slotId)?.snapshots ?? []) as Snapshot<never>[];
  }
  /** Local undo: saves the snapshot before the newest again, as a new save. */
  async undo<K extends SlotId<S>>(slotId: K): Promise<Snapshot<S[K]> | undefined> {
    const ring = this.store.get(slotId)?.snapshots ?? [];
    const previous = ring.at(-2);
    return previous ? (this.saveTarget(slotId, previous.data, previous.slotInfo) as Promise<Snapshot<never>>) : undefined;
  }

  /** Pushes now. `force` skips the interval but honours `forceSyncCooldownSeconds`. */
  async sync(options: { force?: boolean } = {}): Promise<ForceResult> {
    await this.start();
    if (options.force) return this.engine.force();
    this.engine.schedule();
    return { status: "synced" };
  }
  /** Call when the app goes to the background (browsers: automatic). */
  async background(): Promise<void> {
    await this.start();
    await this.engine.background();
  }
  /** Call when the app comes back (browsers: automatic): refresh the policy, pull, then push. */
  async foreground(): Promise<void> {
    await this.start();
    if (!this.config.policy.syncOnAppForeground) return;
    await this.config.refresh().catch(() => {});
    await this.pull().catch((e) => this.events.emit("error", { error: e as SavepointError }));
    await this.engine.flush();
  }
  /** The network came back (browsers: the `online` event). */
  reconnected(): Promise<void> {
    return this.engine.reconnected();
  }

  /** Reads the server's state of the account data and every slot; records with unsent saves keep them (a push will merge). */
  async pull(): Promise<void> {
    await this.start();
    if (!this.session) return;
    const account = await this.api.getAccount();
    const update = async (target: string, version: number, read: () => Promise<{ data: JsonObject; slotInfo?: JsonObject; updatedAt: number }>) => {
      const r = this.store.getOrCreate(target);
      if (isDirty(r) || r.inflight || (r.base && r.base.version >= version)) return;
      const s = await read();
      r.base = { version, ...s };
      r.syncedSeq = r.snapshots.at(-1)?.seq ?? 0;
      await this.store.put(r);
      this.events.emit("change", { target, data: s.data, ...(s.slotInfo ? { slotInfo: s.slotInfo } : {}) });
    };
    await update(accountTarget, account.version, async () => ({ data: account.accountData, updatedAt: this.clock.now() }));
    for (const slot of account.slots) {
      await update(slot.slotId, slot.version, async () => {
        const s = await this.api.getSlot(slot.slotId);
        return { data: s.data, slotInfo: s.slotInfo, updatedAt: Date.parse(s.updatedAt) };
      });
    }
  }

  status(): Status {
    return this.engine.status();
  }
  on<K extends keyof Events>(name: K, listener: (value: Events[K]) => void): () => void {
    return this.events.on(name, listener);
  }
  /** Resolves when no push is running: what a timer started has been answered. */
  settled(): Promise<void> {
    return this.engine.settled();
  }
  /** Waits until nothing is pending or the engine is offline, stopped or in error. */
  async idle(): Promise<Status> {
    for (;;) {
      const s = this.status();
      if (s.pending.length === 0 || s.state === "offline" || s.state === "error" || s.state === "conflict" || s.stopped) return s;
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** Stops timers and browser listeners; local saves stay on the storage. */
  close(): void {
    this.detach();
    this.engine.dispose();
  }
}

/**
 * A client for one game on one device; call `start()` (or any method) to load its saves. Declare the
 * slots' types once: `createClient<{ main: MySave }, MyAccountData>(options)` (README, Typed saves).
 */
export const createClient = <S extends SlotTypes<S> = AnySlots, A extends JsonFields<A> = JsonObject>(options: ClientOptions) =>
  new SavepointClient<S, A>(options);
