import { describe, expect, test } from "bun:test";
import { openRepo } from "../../services/accounts/repo.ts";
import { storeAdapters } from "../helpers/store-adapters.ts";

const adapters = storeAdapters("seats", "accounts.sqlite");

/** A slot as the accounts service wrote it before the active-slot cap: no seatKey. */
const legacySlot = (accountId: string, n: number, status: "active" | "archived") => ({
  _id: `slt_legacy${n}`,
  accountId,
  envId: "prj_x:stage",
  slotId: `s${n}`,
  activeKey: status === "active" ? `${accountId}/s${n}` : `archived:slt_legacy${n}`,
  status,
  slotInfo: "{}",
  data: "{}",
  version: 1,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  snapshotSeq: 1,
});

for (const [name, open] of adapters) {
  describe(`slots written before the slot cap (${name})`, () => {
    test("get seats before the unique index is built, so the service starts and they count against the cap", async () => {
      const store = await open();
      try {
        const raw = await store.collection<ReturnType<typeof legacySlot>>("slots");
        for (let n = 0; n < 3; n++) await raw.insert(legacySlot("acc_old", n, n === 2 ? "archived" : "active"));
        const repo = await openRepo(store);
        const slots = await repo.slots.find({ accountId: "acc_old" }, { sort: { field: "slotId", direction: 1 } });
        expect(slots.map((s) => s.seatKey)).toEqual(["acc_old#0", "acc_old#1", "archived:slt_legacy2"]);
        await openRepo(store); // a second start changes nothing
        expect((await repo.slots.find({ accountId: "acc_old" })).map((s) => s.seatKey).sort()).toEqual([
          "acc_old#0",
          "acc_old#1",
          "archived:slt_legacy2",
        ]);
      } finally {
        await store.close();
      }
    });
  });
}
