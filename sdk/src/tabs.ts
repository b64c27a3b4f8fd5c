import { SavepointError } from "./errors.ts";
import type { Emitter } from "./events.ts";
import type { CreateAccountRequest, JsonObject } from "./generated/schemas.ts";
import type { Snapshot } from "./local-store.ts";

// The Web Locks and BroadcastChannel shapes used here, declared so the SDK compiles without the DOM library.
interface LockManager {
  request(
    name: string,
    options: { ifAvailable?: boolean },
    run: (lock: unknown) => Promise<void> | undefined,
  ): Promise<unknown>;
}
interface Channel {
  postMessage(message: string): void;
  onmessage: ((e: { data: unknown }) => void) | null;
  close(): void;
}

/** A save handed to the syncing tab. */
export interface HandedSave {
  target: string;
  data: JsonObject;
  slotInfo?: JsonObject;
}

/** What the syncing tab does for the others, and what a tab does when it becomes the syncing one. */
export interface TabHost {
  /** Saves durably for another tab; `id` names its request, so a request sent again is saved once. */
  save(save: HandedSave, id: string): Promise<unknown>;
  account(body: CreateAccountRequest): Promise<unknown>;
  sync(force: boolean): Promise<unknown>;
  flush(): Promise<void>;
  pull(): Promise<void>;
  /** This tab holds the lock now: read what the other tabs wrote; the function returned pushes what is pending. */
  lead(): Promise<() => void>;
  /** The syncing tab wrote this record: read it again. */
  reload(target: string): Promise<void>;
  readSession(): Promise<void>;
  /** Runs before the lock passes on: the push under way is answered first. */
  settled(): Promise<void>;
}

type Message =
  | { kind: "request"; id: string; op: string; args: unknown }
  | { kind: "reply"; id: string; value?: unknown; error?: Record<string, unknown> }
  | { kind: "leader" }
  | { kind: "changed"; targets: string[] };

// SavepointErrors inside answers (a sync's results) cross the channel as JSON and come back typed.
const encode = (m: Message) =>
  JSON.stringify(m, (_, v: unknown) => (v instanceof SavepointError ? { $error: { ...v, message: v.message } } : v));
const decode = (text: string) =>
  JSON.parse(text, (_, v: { $error?: SavepointError }) =>
    v && typeof v === "object" && v.$error ? asError(v.$error) : v,
  ) as Message;
const asError = (e: Partial<SavepointError>) =>
  new SavepointError(
    e.code ?? "client_error",
    e.message ?? "",
    e.status ?? 0,
    e.details ?? {},
    e.retryAfterSeconds,
    e.requestId,
  );
const newId = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

/**
 * Tabs of one game on one shared storage take turns (README, Several tabs): the tab holding the Web Lock
 * syncs, the others hand it their saves over a BroadcastChannel and resolve once it has written them
 * durably; when that tab closes, the lock passes to another, which reads the storage again and pushes what
 * is pending, each write under the Idempotency-Key stored with it. Without Web Locks every tab syncs alone.
 */
export class Tabs {
  /** True where this tab syncs: the lock holder, or any tab where there are no Web Locks. */
  leading = true;
  private channel: Channel | undefined;
  private serving = false;
  private queue: Extract<Message, { kind: "request" }>[] = [];
  private readonly waiting = new Map<
    string,
    { message: Message; resolve: (v: unknown) => void; reject: (e: unknown) => void }
  >();
  private release: () => void = () => {};
  private closed = false;
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly host: TabHost,
    private readonly events: Emitter,
  ) {}

  private handle(op: string, args: unknown, id: string): Promise<unknown> {
    const h = this.host;
    if (op === "save") return h.save(args as HandedSave, id);
    if (op === "account") return h.account(args as CreateAccountRequest);
    if (op === "sync") return h.sync((args as { force?: boolean }).force === true);
    return op === "pull" ? h.pull() : h.flush();
  }

  /** Another tab syncs: it writes the save durably and answers; this tab then reads the record back. */
  async handOver(save: HandedSave): Promise<Snapshot> {
    const s = (await this.call("save", save)) as Snapshot;
    await this.changed([save.target]);
    this.events.emit("saved", { target: save.target, seq: s.seq });
    return s;
  }

  /** Takes the lock if it is free, else queues for it; resolves once this tab knows whether it syncs. */
  async join(shared: string | undefined, namespace: string): Promise<void> {
    const g = globalThis as unknown as {
      navigator?: { locks?: LockManager };
      BroadcastChannel?: new (name: string) => Channel;
    };
    const locks = g.navigator?.locks;
    if (!shared || !locks || !g.BroadcastChannel) return;
    const name = `savepoint:${shared}:${namespace}`;
    this.channel = new g.BroadcastChannel(name);
    this.channel.onmessage = (e) => void this.receive(decode(String(e.data)));
    const held = () => new Promise<void>((r) => (this.release = r));
    this.leading = await new Promise<boolean>((resolve) => {
      void locks.request(name, { ifAvailable: true }, (lock) => {
        resolve(lock !== null);
        return lock === null ? undefined : held();
      });
    });
    if (this.leading) return;
    void locks.request(name, {}, () => {
      if (this.closed) return undefined;
      void this.takeOver();
      return held();
    });
  }

  /** The client is loaded: the syncing tab answers the requests that arrived meanwhile. */
  serve(): void {
    if (!this.leading || this.serving) return;
    this.serving = true;
    for (const m of this.queue.splice(0)) void this.answer(m);
  }

  /** Hands a request to the syncing tab (this one, if it syncs) and resolves with its answer. */
  call(op: string, args: unknown): Promise<unknown> {
    const id = newId();
    if (this.leading) return this.handle(op, args, id);
    return new Promise((resolve, reject) => {
      const message: Message = { kind: "request", id, op, args };
      this.waiting.set(id, { message, resolve, reject });
      this.post(message);
    });
  }

  /** Reads again what the syncing tab wrote: records, and the session (`$session`); other values are read when used. */
  changed(targets: string[]): Promise<void> {
    const read = async () => {
      for (const t of targets) {
        if (t === "$session") await this.host.readSession();
        else if (!t.startsWith("$")) await this.host.reload(t);
      }
    };
    // In the order told, and an answer waits for the reads told before it: after sync(), status() is current.
    // A read that fails leaves this tab's view as it was, until the next one.
    this.reading = this.reading.then(read).catch(() => {});
    return this.reading;
  }

  private post(m: Message) {
    try {
      this.channel?.postMessage(encode(m));
    } catch {} // a closed channel (the tab is closing): the other tabs send again to the next syncing tab
  }

  /** The syncing tab wrote a record: the other tabs read it again. */
  written(target: string): void {
    if (this.leading) this.post({ kind: "changed", targets: [target] });
  }

  private async receive(m: Message) {
    if (this.closed) return;
    if (m.kind === "request" && this.leading) return this.serving ? this.answer(m) : void this.queue.push(m);
    if (m.kind === "changed" && !this.leading) return this.changed(m.targets);
    // A new syncing tab: whatever the closed one did not answer is sent again (each is done once, by id).
    if (m.kind === "leader") for (const w of this.waiting.values()) this.post(w.message);
    if (m.kind !== "reply") return;
    const w = this.waiting.get(m.id);
    if (!w) return;
    this.waiting.delete(m.id);
    await this.reading;
    if (m.error) w.reject(asError(m.error));
    else w.resolve(m.value);
  }

  private async answer(m: Extract<Message, { kind: "request" }>) {
    try {
      this.post({ kind: "reply", id: m.id, value: await this.handle(m.op, m.args, m.id) });
    } catch (e) {
      const error =
        e instanceof SavepointError ? e : new SavepointError("client_error", String((e as Error)?.message ?? e), 0);
      this.post({ kind: "reply", id: m.id, error: { ...error, message: error.message } });
    }
  }

  /**
   * The lock came to this tab: it reads the storage again (its own saves meanwhile wait, as handed over, so
   * the read cannot drop them), then syncs, answers its own waiting requests, and the other tabs'.
   */
  private async takeOver() {
    const resume = await this.host.lead();
    this.leading = true;
    resume();
    for (const [id, w] of [...this.waiting]) {
      this.waiting.delete(id);
      const r = w.message as Extract<Message, { kind: "request" }>;
      this.handle(r.op, r.args, r.id).then(w.resolve, w.reject);
    }
    this.serve();
    this.post({ kind: "leader" });
  }

  /** Lets the lock pass on once the push under way has been answered. */
  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiting.values())
      w.reject(new SavepointError("closed", "the client was closed before the syncing tab answered", 0));
    this.waiting.clear();
    if (this.leading) await this.host.settled().catch(() => {});
    this.release();
    this.channel?.close();
  }
}
