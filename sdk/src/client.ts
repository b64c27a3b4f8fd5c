import { AccountHelpers } from "./account-helpers.ts";
import type { SavepointApi } from "./api.ts";
import { startBackgroundWork } from "./background-work.ts";
import type { ClientOptions, Session } from "./client-options.ts";
import { clientParts } from "./client-parts.ts";
import type { Clock } from "./clock.ts";
import type { RuntimeConfig } from "./config.ts";
import {
  copy,
  currentData,
  currentSlotInfo,
  type LocalSaveDeps,
  loadedStore,
  saveLocally,
  slotIds,
} from "./device-saves.ts";
import type { SyncEngine } from "./engine.ts";
import type { SavepointError } from "./errors.ts";
import { Emitter, type Events, type Status } from "./events.ts";
import type { AccountEnvelopeResponse, CreateAccountRequest, JsonObject } from "./generated/schemas.ts";
import { idleStatus } from "./idle.ts";
import { assertJson } from "./json-check.ts";
import { accountTarget, isDirty, type LocalStore, type Snapshot } from "./local-store.ts";
import { pullAll } from "./pull.ts";
import type { ServerClock } from "./server-clock.ts";
import type { SyncResult } from "./sync-result.ts";
import { Tabs } from "./tabs.ts";
import type { AnySlots, JsonFields, SlotId, SlotTypes } from "./typed-slots.ts";

export type { ClientOptions, Session } from "./client-options.ts";

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
  /** The server's time as this device estimates it, from the `Date` of its answers (README, Conflicts). */
  readonly serverClock: ServerClock;
  /** Transfer codes, sign-in, devices, restore points. */
  readonly account: AccountHelpers = new AccountHelpers(this);
  private readonly engine: SyncEngine;
  private readonly saves: LocalSaveDeps;
  private session: Session | undefined;
  private detach: () => void = () => {};
  private started: Promise<void> | undefined;
  private configRefresh: Promise<void> | undefined;
  private loaded = false;
  private stopPolling: () => void = () => {};
  private readonly tabs: Tabs = new Tabs(
    {
      save: (a, id) => this.saveTarget(a.target, a.data, a.slotInfo, id),
      account: (body) => this.ensureAccount(body),
      sync: (force) => this.engine.sync(force),
      flush: () => this.engine.flush(),
      pull: () => this.pull(),
      lead: async () => {
        await this.store.load();
        await this.tabs.changed(["$session"]);
        return () => this.engine.resume();
      },
      reload: async (target) => {
        await this.store.reload(target);
        this.events.emit("status", this.status());
      },
      readSession: async () => {
        this.session = await this.store.getValue<Session>("session");
      },
      settled: () => this.engine.settled(),
    },
    this.events,
  );

  constructor(readonly options: ClientOptions) {
    const parts = clientParts(options, this.events, {
      session: () => this.session,
      hasSession: () => this.session !== undefined && this.tabs.leading,
    });
    this.clock = parts.clock;
    this.store = parts.store;
    this.serverClock = parts.serverClock;
    this.api = parts.api;
    this.config = parts.config;
    this.engine = parts.engine;
    this.saves = parts.saves;
  }

  /** Loads the device's saves and session, refreshes the policy, and pushes what is pending. Safe to call twice. */
  start(): Promise<void> {
    this.started ??= (async () => {
      await this.tabs.join(this.store.storage.shared, this.store.namespace);
      this.store.onWrite = (target) => this.tabs.written(target);
      await this.store.load();
      await this.config.load();
      this.session = await this.store.getValue<Session>("session");
      this.serverClock.restore(await this.store.getValue<number>("clockOffset"));
      this.loaded = true;
      const work = startBackgroundWork({
        options: this.options,
        clock: this.clock,
        config: this.config,
        engine: this.engine,
        events: this.events,
        background: () => this.background(),
        foreground: () => this.foreground(),
      });
      this.detach = work.detach;
      this.configRefresh = work.configRefresh;
      this.stopPolling = work.stopPolling;
      this.tabs.serve();
    })();
    return this.started;
  }

  /** Resolves when the runtime config asked at start, and any read of it since, has answered (or failed). */
  async ready(): Promise<void> {
    await this.start();
    await this.configRefresh;
    await this.config.settled();
  }

  /** This device's account, if it has one. */
  get accountId(): string | undefined {
    return this.session?.accountId;
  }

  /** Creates an account for this device unless it has one; returns its id. */
  async ensureAccount(body: CreateAccountRequest = {}): Promise<string> {
    await this.ready();
    if (this.session) return this.session.accountId;
    if (!this.tabs.leading) {
      await this.tabs.call("account", body);
      await this.tabs.changed(["$session"]);
      return this.session!.accountId;
    }
    const label = this.options.deviceLabel;
    const created = await this.api.createAccount({ ...(label ? { deviceLabel: label } : {}), ...body });
    await this.adoptEnvelope(created);
    return created.accountId;
  }

  /** Makes an answer's session this device's, and its account state the local base. */
  async adoptEnvelope(
    e: Pick<AccountEnvelopeResponse, "accountId" | "accountSessionToken"> & Partial<AccountEnvelopeResponse>,
  ): Promise<void> {
    this.session = { accountId: e.accountId, token: e.accountSessionToken };
    await this.store.setValue("session", this.session);
    await this.config.adopt(e.syncPolicy);
    if (e.account) {
      const r = this.store.getOrCreate(accountTarget);
      if (!isDirty(r))
        r.base = { version: e.account.version, data: e.account.accountData, updatedAt: this.serverClock.now() };
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
  async save<K extends SlotId<S>, I extends JsonFields<I> = JsonObject>(
    slotId: K,
    data: S[K],
    slotInfo?: I,
  ): Promise<Snapshot<S[K]>> {
    return this.saveTarget(slotId, data as JsonObject, slotInfo as JsonObject | undefined) as Promise<Snapshot<never>>;
  }
  /** The account-wide data, saved like a slot. */
  async saveAccountData(data: A): Promise<Snapshot<A>> {
    return this.saveTarget(accountTarget, data as JsonObject, undefined) as Promise<Snapshot<never>>;
  }
  private async saveTarget(
    target: string,
    data: JsonObject,
    slotInfo: JsonObject | undefined,
    tab?: string,
  ): Promise<Snapshot> {
    // Refused before anything is written: the ring, the storage and the server keep the last good save.
    assertJson(target === accountTarget ? "accountData" : "data", data, { object: true });
    if (slotInfo !== undefined) assertJson("slotInfo", slotInfo, { object: true });
    await this.start();
    // Another tab syncs: it writes the save durably and answers; this tab reads it back (README, Several tabs).
    if (!this.tabs.leading) return this.tabs.handOver({ target, data, slotInfo });
    return saveLocally(this.saves, target, data, slotInfo, tab);
  }
  /** True where this tab pushes: it holds the Web Lock, or there are none (README, Several tabs). */
  get isSyncingTab(): boolean {
    return this.tabs.leading;
  }

  private loadedStore(): LocalStore {
    return loadedStore(this.store, this.loaded);
  }

  /** The slot's data as the device knows it (its newest save, else the server's last state); `undefined`: none anywhere yet. */
  load<K extends SlotId<S>>(slotId: K): S[K] | undefined {
    return currentData(this.loadedStore(), slotId) as S[K] | undefined;
  }
  slotInfo(slotId: string): JsonObject | undefined {
    return currentSlotInfo(this.loadedStore(), slotId);
  }
  accountData(): A | undefined {
    return this.load(accountTarget as SlotId<S>) as A | undefined;
  }
  /** Slot ids known on this device. */
  slots(): string[] {
    return slotIds(this.loadedStore());
  }

  /** The ring of local saves of a slot, oldest first (`maxQueuedLocalSnapshots` of them). */
  localSnapshots<K extends SlotId<S>>(slotId: K): Snapshot<S[K]>[] {
    return copy(this.loadedStore().get(slotId)?.snapshots ?? []) as Snapshot<never>[];
  }
  /** Local undo: saves the snapshot before the newest again, as a new save. */
  async undo<K extends SlotId<S>>(slotId: K): Promise<Snapshot<S[K]> | undefined> {
    await this.start();
    const ring = this.store.get(slotId)?.snapshots ?? [];
    const previous = ring.at(-2);
    return previous
      ? (this.saveTarget(slotId, previous.data, previous.slotInfo) as Promise<Snapshot<never>>)
      : undefined;
  }

  /** Pushes if the interval (`force`: the cooldown) allows; answers what became of each pending change (README, Sync results). */
  async sync(options: { force?: boolean } = {}): Promise<SyncResult> {
    await this.start();
    if (!this.tabs.leading) return this.tabs.call("sync", { force: options.force === true }) as Promise<SyncResult>;
    return this.engine.sync(options.force === true);
  }
  /** Pushes what is pending now, whatever the interval and cooldown (before a transfer decides what would be lost). */
  flushNow = async (): Promise<void> => {
    await this.start();
    await (this.tabs.leading ? this.engine.flush() : this.tabs.call("flush", {}));
  };
  /** Call when the app goes to the background (browsers: automatic). Another tab syncing is asked to push. */
  async background(): Promise<void> {
    await this.start();
    await (this.tabs.leading
      ? this.engine.background()
      : this.engine.decide("background").action === "push" && this.flushNow());
  }
  /** The app comes back (browsers: automatic): reads the policy whatever it said, then pulls and pushes if it allows. */
  async foreground(): Promise<void> {
    await this.start();
    if (this.engine.decide("foreground").action === "refresh") await this.config.refresh().catch(() => {});
    if (this.engine.decide("policyRead").action !== "pull") return;
    await this.pull().catch((e) => this.events.emit("error", { error: e as SavepointError }));
    await this.engine.flush();
  }
  /** The network came back (browsers: the `online` event). */
  reconnected = (): Promise<void> => this.engine.reconnected();
  /** The network went away (browsers: the `offline` event): a failed sync then waits for `reconnected()`, not a timer. */
  disconnected = (): void => this.engine.disconnected();

  /** Reads the server's state of the account data and every slot; records with unsent saves keep them (a push will merge). */
  async pull(): Promise<void> {
    await this.start();
    if (!this.tabs.leading) return void (await this.tabs.call("pull", {}));
    if (this.session)
      await pullAll({ api: this.api, store: this.store, events: this.events, serverNow: () => this.serverClock.now() });
  }

  /** The server's time now, as this device estimates it (its clock may be wrong by hours). */
  serverTime(): number {
    return this.serverClock.now();
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
  idle(): Promise<Status> {
    return idleStatus(() => this.status());
  }

  /** Stops timers and browser listeners; local saves stay on the storage. */
  close(): void {
    this.detach();
    this.stopPolling();
    this.engine.dispose();
    void this.tabs.close();
  }
}
