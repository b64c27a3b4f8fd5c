import type { JsonObject } from "./generated/schemas.ts";
import { isDirty, type LocalRecord, type LocalStore } from "./local-store.ts";

/** A record's changes the server does not have: what would be lost if this device's data were replaced. */
export interface UnsyncedChange {
  /** A slot id, or `"accountData"`. */
  target: string;
  /** Its newest local state. */
  data: JsonObject;
  slotInfo?: JsonObject;
  /** Local saves not on the server yet. */
  saves: number;
}

const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Every record with saves the server has not acknowledged, newest state first of each. */
export function unsyncedChanges(store: LocalStore): UnsyncedChange[] {
  return unsyncedOf(store.all());
}

/** The same from the records themselves (sdk-vectors/reattach.json gives them as plain JSON). */
export function unsyncedOf(records: readonly LocalRecord[]): UnsyncedChange[] {
  return records
    .filter((r) => isDirty(r) || r.inflight)
    .map((r) => {
      const newest = r.snapshots.at(-1);
      const data = newest && newest.seq > r.syncedSeq ? newest : r.inflight;
      const saves = Math.max(1, r.snapshots.filter((s) => s.seq > r.syncedSeq).length);
      return {
        target: r.target,
        data: copy(data?.data ?? {}),
        ...(data?.slotInfo ? { slotInfo: copy(data.slotInfo) } : {}),
        saves,
      };
    });
}
