import { z } from "zod";
import type {
  AccountConflictResponse,
  AccountConflictWire,
  SlotConflictResponse,
  SlotConflictWire,
} from "./accounts.ts";
import { AccountId, freeForm, SlotId, Timestamp, Version } from "./common.ts";

/**
 * A path's version number: digits only, so "1e3", " 1" and "0x10" are refused rather than read as
 * numbers. The gateway parses the path and the service parses the message again, a number by then.
 */
const VersionParam = z.preprocess(
  (v) => (typeof v === "string" && /^[1-9][0-9]{0,8}$/.test(v) ? Number(v) : v),
  Version,
);

export const SlotVersionPath = z.strictObject({ accountId: AccountId, slotId: SlotId, version: VersionParam });
export const DataVersionPath = z.strictObject({ accountId: AccountId, version: VersionParam });

/** One page of restore points (docs/using-the-api.md#restoring-a-slot): `cursor` is the `next` of the page before. */
export const HistoryQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});

const Point = {
  version: Version,
  createdAt: Timestamp,
  sizeBytes: z.int().min(0).describe("UTF-8 bytes of the JSON of that version's `data` (or `accountData`)."),
};

export const SlotRestorePointList = z
  .object({
    accountId: AccountId,
    slotId: SlotId,
    restorePoints: z.array(z.object({ ...Point, slotInfo: freeForm() })),
    next: z.string().optional().describe("Pass as `cursor` for the next, older page; absent on the last page."),
  })
  .meta({ id: "SlotRestorePointList" });
export type SlotRestorePointList = z.infer<typeof SlotRestorePointList>;

export const DataRestorePointList = z
  .object({
    accountId: AccountId,
    restorePoints: z.array(z.object(Point)),
    next: z.string().optional().describe("Pass as `cursor` for the next, older page; absent on the last page."),
  })
  .meta({ id: "DataRestorePointList" });
export type DataRestorePointList = z.infer<typeof DataRestorePointList>;

export const SlotVersionResponse = z
  .object({ slotId: SlotId, version: Version, createdAt: Timestamp, slotInfo: freeForm(), data: freeForm() })
  .meta({ id: "SlotVersionResponse" });
export const DataVersionResponse = z
  .object({ version: Version, createdAt: Timestamp, accountData: freeForm() })
  .meta({ id: "DataVersionResponse" });

export const PlayerRestoreRequest = z
  .strictObject({
    version: Version.describe("The restore point to bring back."),
    baseVersion: Version.describe("The current version as this device knows it; a stale one is the usual 409."),
  })
  .meta({ id: "PlayerRestoreRequest" });
export type PlayerRestoreRequest = z.infer<typeof PlayerRestoreRequest>;

/**
 * A restore's 409 as the accounts service sends it: the client side (the restored content) is in it,
 * the gateway adds the server side from `slot` or `account`, so the largest conflict fits one bus message.
 */
export type RestoreSlotConflictWire = SlotConflictWire & {
  details: { clientSlot: SlotConflictResponse["details"]["clientSlot"] };
};
export type RestoreDataConflictWire = AccountConflictWire & { details: { clientAccountData: Record<string, unknown> } };

export const completeRestoreSlotConflict = (wire: RestoreSlotConflictWire): SlotConflictResponse => ({
  ...wire,
  details: { ...wire.details, serverSlot: { slotInfo: wire.slot.slotInfo, data: wire.slot.data } },
});
export const completeRestoreDataConflict = (wire: RestoreDataConflictWire): AccountConflictResponse => ({
  ...wire,
  details: { ...wire.details, serverAccountData: wire.account.accountData },
});
