import type { SavepointApi } from "./api.ts";
import type { Clock } from "./clock.ts";
import { SavepointError } from "./errors.ts";
import type { Emitter } from "./events.ts";
import type { JsonObject } from "./generated/schemas.ts";
import { newIdempotencyKey } from "./http.ts";
import { assertJson } from "./json-check.ts";
import { accountTarget, addSnapshot, type Inflight, type LocalRecord, type LocalStore } from "./local-store.ts";
import { type Resolution, resolveWith } from "./merge.ts";

export interface PushDeps {
  api: SavepointApi;
  store: LocalStore;
  clock: Clock;
  /** The server's time as the device estimates it: merged saves are stamped with it, as saves are. */
  serverNow: () => number;
  events: Emitter;
  resolution: (target: string) => Resolution;
  maxConflictRetries: number;
  maxSnapshots: () => number;
  /** "latest": saves made between two syncs go as one write; "all": each queued save is its own version. */
  replay: "latest" | "all";
}

type Server = { version: number; data: JsonObject; slotInfo?: JsonObject; updatedAt: number };
type Outcome = { accepted: { version: number; updatedAt: string; warnings?: string[] } } | { conflict: Server };

const copy = (v: JsonObject) => JSON.parse(JSON.stringify(v)) as JsonObject;

/**
 * The next write of a record: the one already begun (same key), else the next save to send. Replaying
 * every queued save, the keys of all of them are stored in one write, not one write per save.
 */
async function nextInflight(d: PushDeps, r: LocalRecord, keepalive: boolean): Promise<Inflight> {
  if (r.inflight) return r.inflight;
  const pending = r.snapshots.filter((s) => s.seq > r.syncedSeq);
  const s = d.replay === "all" ? pending[0]! : pending.at(-1)!;
  const queued = r.queuedKeys?.[s.seq];
  if (queued === undefined && d.replay === "all")
    r.queuedKeys = Object.fromEntries(pending.map((p) => [p.seq, newIdempotencyKey()]));
  const key = queued ?? r.queuedKeys?.[s.seq] ?? newIdempotencyKey();
  r.inflight = {
    key,
    seq: s.seq,
    baseVersion: r.base?.version ?? null,
    data: s.data,
    ...(s.slotInfo ? { slotInfo: s.slotInfo } : {}),
  };
  if (queued !== undefined) return r.inflight;
  // Persisted before it is sent, so that after a crash the retry carries the same key and body. A page
  // that is being hidden or closed may not live through an IndexedDB write: then the request leaves first.
  const persisted = d.store.put(r);
  if (keepalive) persisted.catch(() => {});
  else await persisted;
  return r.inflight;
}

async function send(d: PushDeps, r: LocalRecord, w: Inflight, keepalive: boolean): Promise<Outcome> {
  const o = { idempotencyKey: w.key, keepalive };
  if (r.target === accountTarget) {
    const a = await d.api.syncAccountData({ baseVersion: w.baseVersion ?? 1, accountData: w.data }, undefined, o);
    if (a.status === "accepted") return { accepted: a };
    return { conflict: { version: a.version, data: a.account.accountData, updatedAt: Date.parse(a.updatedAt) } };
  }
  if (w.baseVersion === null) {
    try {
      const created = await d.api.createSlot(
        { slotId: r.target, data: w.data, ...(w.slotInfo ? { slotInfo: w.slotInfo } : {}) },
        undefined,
        o,
      );
      return { accepted: { version: created.version, updatedAt: created.updatedAt } };
    } catch (e) {
      // Another device made this slot first: merge against its state as with any conflict.
      if (!(e instanceof SavepointError && e.code === "slot_already_exists")) throw e;
      const s = await d.api.getSlot(r.target);
      return {
        conflict: { version: s.version, data: s.data, slotInfo: s.slotInfo, updatedAt: Date.parse(s.updatedAt) },
      };
    }
  }
  const a = await d.api.syncSlot(
    r.target,
    { baseVersion: w.baseVersion, data: w.data, ...(w.slotInfo ? { slotInfo: w.slotInfo } : {}) },
    undefined,
    o,
  );
  if (a.status === "accepted") return { accepted: a };
  return {
    conflict: {
      version: a.slot.version,
      data: a.slot.data,
      slotInfo: a.slot.slotInfo,
      updatedAt: Date.parse(a.slot.updatedAt),
    },
  };
}

/** What a write's outcome changes in its record; the snapshots and their seqs stay as they are. */
type PushState = Pick<LocalRecord, "base" | "syncedSeq" | "inflight" | "queuedKeys">;

/**
 * The record once the server took write `w`. `store` is false while the next queued save's key is stored
 * already: its write needs this state no more than a crash would (the same key replays this answer). The
 * last write of the push is stored.
 */
function acceptedState(r: LocalRecord, w: Inflight, version: number, updatedAt: string) {
  const { [w.seq]: _, ...rest } = r.queuedKeys ?? {};
  const queuedKeys = r.queuedKeys && rest;
  const syncedSeq = Math.max(r.syncedSeq, w.seq);
  const next = r.snapshots.find((x) => x.seq > syncedSeq);
  const state: PushState = {
    base: { version, data: w.data, ...(w.slotInfo ? { slotInfo: w.slotInfo } : {}), updatedAt: Date.parse(updatedAt) },
    syncedSeq,
    inflight: undefined,
    queuedKeys: queuedKeys && Object.keys(queuedKeys).length > 0 ? queuedKeys : undefined,
  };
  return { state, store: !(next && queuedKeys?.[next.seq] !== undefined) };
}

/**
 * The merge of a 409: the newest local save (or the write itself) against the server state, on the common
 * base. Nothing in the record changes here: a resolution that throws leaves it as it was.
 */
function mergeConflict(d: PushDeps, r: LocalRecord, w: Inflight, server: Server, attempt: number) {
  const newest = r.snapshots.at(-1)!;
  const local = newest.seq > w.seq ? newest.data : w.data;
  const localSlotInfo = newest.seq > w.seq ? newest.slotInfo : w.slotInfo;
  const base = r.base?.data ?? {};
  const context = { target: r.target, serverUpdatedAt: server.updatedAt, localSavedAt: newest.savedAt };
  const resolved = resolveWith(d.resolution(r.target), base, server.data, local, context);
  assertJson("merged", resolved, { object: true });
  const merged = copy(resolved);
  const event = { ...context, base, server: server.data, local, merged, serverVersion: server.version, attempt };
  return { merged, event, newestSeq: newest.seq, slotInfo: localSlotInfo ?? server.slotInfo };
}

/** The server's state wins as it is: nothing to send, the local copy follows it. */
const followServer = (server: Server, newestSeq: number): PushState => ({
  base: server,
  syncedSeq: newestSeq,
  inflight: undefined,
  queuedKeys: undefined,
});

/** The merge becomes a save of its own, sent next on the server's version. */
function mergedWrite(d: PushDeps, r: LocalRecord, server: Server, merged: JsonObject, slotInfo?: JsonObject) {
  const s = addSnapshot(r, merged, slotInfo, d.serverNow(), d.maxSnapshots());
  const inflight: Inflight = {
    key: newIdempotencyKey(),
    seq: s.seq,
    baseVersion: server.version,
    data: merged,
    ...(slotInfo ? { slotInfo } : {}),
  };
  return { base: server, syncedSeq: r.syncedSeq, inflight, queuedKeys: undefined } satisfies PushState;
}

const pending = (r: LocalRecord) => (r.snapshots.at(-1)?.seq ?? 0) > r.syncedSeq || r.inflight !== undefined;

/**
 * Sends a record's pending saves. A 409 is merged against the common base with the server state it
 * carries (no extra read) and the result is sent on the server's version, at most `maxConflictRetries`
 * times (README, Conflicts). Errors other than conflicts are thrown to the engine.
 */
export async function pushRecord(d: PushDeps, r: LocalRecord, keepalive = false): Promise<void> {
  let conflicts = 0;
  while (pending(r)) {
    const w = await nextInflight(d, r, keepalive);
    const outcome = await send(d, r, w, keepalive);
    if ("accepted" in outcome) {
      const { version, updatedAt, warnings } = outcome.accepted;
      const { state, store } = acceptedState(r, w, version, updatedAt);
      Object.assign(r, state);
      if (store) await d.store.put(r);
      d.events.emit("synced", { target: r.target, version, ...(warnings ? { warnings } : {}) });
      continue;
    }
    conflicts++;
    const server = outcome.conflict;
    const { merged, event, newestSeq, slotInfo } = mergeConflict(d, r, w, server, conflicts);
    d.events.emit("conflict", event);
    if (JSON.stringify(merged) === JSON.stringify(server.data)) {
      Object.assign(r, followServer(server, newestSeq));
      await d.store.put(r);
      d.events.emit("change", {
        target: r.target,
        data: server.data,
        ...(server.slotInfo ? { slotInfo: server.slotInfo } : {}),
      });
      return;
    }
    Object.assign(r, mergedWrite(d, r, server, merged, slotInfo));
    await d.store.put(r);
    d.events.emit("change", { target: r.target, data: merged, ...(slotInfo ? { slotInfo } : {}) });
    if (conflicts > d.maxConflictRetries) {
      throw new SavepointError("conflict", `${r.target}: still conflicting after ${d.maxConflictRetries} merges`, 409, {
        target: r.target,
      });
    }
  }
}
