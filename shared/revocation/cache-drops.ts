import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Bus } from "../bus/port.ts";
import { fail } from "../contract/errors.ts";
import { metrics, since } from "../observe/metrics.ts";

/**
 * docs/operating.md#lifecycle (Revocation): how a revoke (a session, a runtime key, an account's or a tenant's change) is
 * seen by every gateway copy before it is answered, using only the bus's requests and events.
 *
 * Gateways announce themselves with a heartbeat on `aliveSubject`, and trust their caches only while
 * their own heartbeat comes back to them (sent within `trustMs`). A publisher asks every gateway it
 * heard from within `trustMs` to drop the entries, and answers once each has confirmed, or has been
 * silent for `trustMs` (so it no longer trusts its cache). A gateway that resumes after that finds
 * its trust lapsed: it clears its caches, and any drop request sent to it meanwhile reaches it before
 * the echo that restores its trust (one connection, in order).
 */
export const heartbeatMs = 500;
export const trustMs = 2_000;
export const confirmMs = 1_000;
/** The longest a revoke waits for a gateway that keeps announcing itself but never confirms. */
export const revokeBoundMs = trustMs + confirmMs;

const aliveSubject = "events.gateway.alive";
const probeSubject = "events.gateway.probe";
const dropSubject = (gatewayId: string) => `gateway.${gatewayId}.drop`;
const Alive = z.object({ id: z.string(), kind: z.enum(["gateway", "sync"]), at: z.number() });
const Drop = z.object({ subject: z.string(), data: z.unknown() });

type Event = { subject: string };

interface Watcher {
  lastSeen: Map<string, number>;
  /** When this publisher can know every gateway that may trust its cache: `trustMs` after its subscription took. */
  readyAt?: number;
  sync(): Promise<boolean>;
}
const watchers = new WeakMap<Bus, Watcher>();

/**
 * The gateways `bus` hears from; call it when a publishing service starts, so its first revoke does
 * not wait out `trustMs` to learn them.
 */
export function watchGateways(bus: Bus): Watcher {
  let w = watchers.get(bus);
  if (w) return w;
  const id = randomUUID();
  const lastSeen = new Map<string, number>();
  const waiting = new Map<number, () => void>();
  let next = 0;
  bus.subscribe(aliveSubject, (data) => {
    const beat = Alive.safeParse(data);
    if (!beat.success) return;
    if (beat.data.kind === "gateway") lastSeen.set(beat.data.id, performance.now());
    else if (beat.data.id === id) waiting.get(beat.data.at)?.();
  });
  // Its own marker coming back proves every heartbeat the bus took before it has been read here.
  const sync = () =>
    new Promise<boolean>((resolve) => {
      const n = next++;
      const timer = setTimeout(() => done(false), confirmMs);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        waiting.delete(n);
        if (ok && watcher.readyAt === undefined) watcher.readyAt = bus.inProcess ? 0 : performance.now() + trustMs;
        resolve(ok);
      };
      waiting.set(n, () => done(true));
      try {
        bus.publish(aliveSubject, { id, kind: "sync", at: n });
      } catch {
        done(false);
      }
    });
  const watcher: Watcher = { lastSeen, sync };
  w = watcher;
  watchers.set(bus, w);
  // Gateways answer a probe with a heartbeat at once (in process: before this returns).
  bus.publish(probeSubject, {});
  void sync();
  return w;
}

/**
 * Has every gateway drop what `event` makes stale before the caller answers: resolves once each live
 * gateway confirmed or stopped trusting its cache; `service_unavailable` if that cannot be proven
 * within `revokeBoundMs` (the change is stored; a retry announces it again).
 */
export async function dropEverywhere(bus: Bus, event: Event, data: unknown): Promise<void> {
  const w = watchGateways(bus);
  if (!(await w.sync())) throw fail.serviceUnavailable();
  const wait = (w.readyAt ?? 0) - performance.now();
  if (wait > 0) await Bun.sleep(wait);
  const deadline = performance.now() + revokeBoundMs;
  const silentFor = (id: string) => performance.now() - (w.lastSeen.get(id) ?? -Infinity);
  // A gateway silent for `trustMs` trusts nothing it cached: it is forgotten until it is heard again.
  for (const id of w.lastSeen.keys()) if (silentFor(id) >= trustMs) w.lastSeen.delete(id);
  const live = [...w.lastSeen.keys()];
  const confirmed = await Promise.all(
    live.map((id) => confirm(bus, w, id, { subject: event.subject, data }, deadline, silentFor)),
  );
  if (confirmed.includes(false)) throw fail.serviceUnavailable();
}

async function confirm(
  bus: Bus,
  w: Watcher,
  id: string,
  drop: z.infer<typeof Drop>,
  deadline: number,
  silentFor: (id: string) => number,
) {
  for (;;) {
    const left = Math.min(deadline - performance.now(), trustMs - silentFor(id));
    try {
      await bus.request(dropSubject(id), drop, { timeoutMs: Math.max(20, Math.min(confirmMs, left)) });
      return true;
    } catch {
      // Gone, stopped or cut off: it serves nothing from its cache once silent for `trustMs`.
      if ((await w.sync()) && silentFor(id) >= trustMs) return true;
      if (performance.now() >= deadline) return false;
      await Bun.sleep(Math.max(0, Math.min(100, trustMs - silentFor(id))));
    }
  }
}

export interface CacheTrust {
  /** Whether cached credentials may be used now. */
  trusted(): boolean;
}

/**
 * A gateway's side: serves drop requests with `drop`, heartbeats, and calls `lapse` when its trust
 * lapsed (before trusting again), so nothing cached or looked up before the lapse is used after it.
 */
export function joinCacheDrops(
  bus: Bus,
  drop: (subject: string, data: unknown) => void,
  lapse: () => void,
): CacheTrust {
  const id = randomUUID();
  // In process a heartbeat reaches every publisher as it is sent; over NATS trust waits for a second
  // one, so every publisher has heard the first before this gateway uses its cache.
  const needed = bus.inProcess ? 1 : 2;
  let echoedAt = -Infinity;
  let streak = 0;
  // Timed like a service's handler (shared/serving/host.ts), which this layer below serving cannot use.
  bus.serve(`gateway-${id}`, dropSubject(id), async (data) => {
    const start = performance.now();
    let outcome = "internal_error";
    try {
      const d = Drop.parse(data);
      drop(d.subject, d.data);
      outcome = "ok";
      return {};
    } finally {
      metrics.handled.observe({ subject: dropSubject(id), outcome }, since(start));
    }
  });
  const beat = () => {
    if (bus.inProcess && !bus.connected()) return clearInterval(timer);
    try {
      bus.publish(aliveSubject, { id, kind: "gateway", at: performance.now() });
    } catch {
      clearInterval(timer);
    }
  };
  bus.subscribe(aliveSubject, (data) => {
    const echo = Alive.safeParse(data);
    if (!echo.success || echo.data.id !== id) return;
    if (performance.now() - echoedAt > trustMs) {
      lapse();
      streak = 0;
    }
    echoedAt = Math.max(echoedAt, echo.data.at);
    streak++;
  });
  bus.subscribe(probeSubject, beat);
  const timer = setInterval(beat, heartbeatMs);
  timer.unref?.();
  beat();
  return { trusted: () => streak >= needed && performance.now() - echoedAt <= trustMs };
}
