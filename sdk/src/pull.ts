import type { SavepointApi } from "./api.ts";
import type { Emitter } from "./events.ts";
import type { JsonObject } from "./generated/schemas.ts";
import { accountTarget, isDirty, type LocalStore } from "./local-store.ts";

export interface PullDeps {
  api: SavepointApi;
  store: LocalStore;
  events: Emitter;
  /** The server's time as the device estimates it (the account answer carries no updatedAt of its data). */
  serverNow: () => number;
}

/** Reads the server's state of the account data and every slot; records with unsent saves keep them (a push will merge). */
export async function pullAll(d: PullDeps): Promise<void> {
  const account = await d.api.getAccount();
  const update = async (
    target: string,
    version: number,
    read: () => Promise<{ data: JsonObject; slotInfo?: JsonObject; updatedAt: number }>,
  ) => {
    const r = d.store.getOrCreate(target);
    if (isDirty(r) || r.inflight || (r.base && r.base.version >= version)) return;
    const s = await read();
    r.base = { version, ...s };
    r.syncedSeq = r.snapshots.at(-1)?.seq ?? 0;
    await d.store.put(r);
    d.events.emit("change", { target, data: s.data, ...(s.slotInfo ? { slotInfo: s.slotInfo } : {}) });
  };
  await update(accountTarget, account.version, async () => ({ data: account.accountData, updatedAt: d.serverNow() }));
  for (const slot of account.slots) {
    await update(slot.slotId, slot.version, async () => {
      const s = await d.api.getSlot(slot.slotId);
      return { data: s.data, slotInfo: s.slotInfo, updatedAt: Date.parse(s.updatedAt) };
    });
  }
}
