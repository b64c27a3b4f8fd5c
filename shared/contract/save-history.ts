import { z } from "zod";
import { ProjectPath } from "./admin.ts";
import { Environment, Timestamp, Version } from "./common.ts";
import { SaveId } from "./runtime.ts";

/** The save-based model's erasure and restore points (docs/api-rules.md#the-save-based-model). */
export const SavePath = z.strictObject({ saveId: SaveId });
export const DeleteSaveResponse = z
  .object({
    saveId: z.string(),
    deletedAt: Timestamp.describe("When the save was first deleted."),
    alreadyDeleted: z.boolean().describe("True when an earlier request deleted it."),
  })
  .meta({ id: "DeleteSaveResponse" });
export type DeleteSaveResponse = z.infer<typeof DeleteSaveResponse>;

/** Operators address a save by its environment: the same id in stage and prod are two saves. */
export const AdminSavePath = ProjectPath.extend({ env: Environment, saveId: SaveId });

export const SaveRestorePointList = z
  .object({
    saveId: z.string(),
    restorePoints: z.array(
      z.object({
        version: Version,
        createdAt: Timestamp,
        sizeBytes: z.int().min(0).describe("UTF-8 bytes of the JSON of that version's `state`."),
      }),
    ),
  })
  .meta({ id: "SaveRestorePointList" });
export type SaveRestorePointList = z.infer<typeof SaveRestorePointList>;
