import { SavepointError } from "./errors.ts";
import type { Emitter } from "./events.ts";
import type { JsonObject } from "./generated/schemas.ts";
import { accountTarget, addSnapshot, currentOf, type LocalStore, type Snapshot } from "./local-store.ts";

/** The game gets copies and the store keeps its own: changing one is never a save. */
export const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

export interface LocalSaveDeps {
  store: LocalStore;
  events: Emitter;
  /** The server's time as the device estimates it: the `latest` rule sets a save's time against the server's updatedAt. */
  serverNow: () => number;
  maxSnapshots: () => number;
  /** Tells the engine a save is pending. */
  saved: () => void;
}

/**
 * Adds a save to its record's ring and stores it; resolves once it is durable. A save another tab handed
 * over (`tab`, its request's id) that is in the ring already is answered with that one, not saved twice.
 */
export async function saveLocally(
  d: LocalSaveDeps,
  target: string,
  data: JsonObject,
  slotInfo: JsonObject | undefined,
  tab?: string,
): Promise<Snapshot> {
  const r = d.store.getOrCreate(target);
  const done = tab === undefined ? undefined : r.snapshots.find((x) => x.tab === tab);
  if (done) return done;
  const s = addSnapshot(r, copy(data), slotInfo && copy(slotInfo), d.serverNow(), d.maxSnapshots());
  if (tab !== undefined) s.tab = tab;
  await d.store.put(r);
  d.events.emit("saved", { target, seq: s.seq });
  d.saved();
  return s;
}

/** Before `start()` has loaded the saves, "no save" is a guess a fresh save would overwrite progress on: refused. */
export function loadedStore(store: LocalStore, loaded: boolean): LocalStore {
  if (!loaded)
    throw new SavepointError(
      "not_ready",
      "the device's saves are not loaded yet: await openClient(...) or client.start() first",
      0,
    );
  return store;
}

/** A record's data as the device knows it (its newest save, else the server's last state). */
export function currentData(store: LocalStore, target: string): JsonObject | undefined {
  const r = store.get(target);
  const s = r && currentOf(r);
  return s && copy(s.data);
}

export function currentSlotInfo(store: LocalStore, target: string): JsonObject | undefined {
  const r = store.get(target);
  const s = r && currentOf(r);
  return s?.slotInfo && copy(s.slotInfo);
}

/** Slot ids known on this device. */
export const slotIds = (store: LocalStore): string[] =>
  store
    .all()
    .map((r) => r.target)
    .filter((t) => t !== accountTarget);
