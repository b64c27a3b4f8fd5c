import { z } from "zod";
import { freeForm, Limits, pathId, SyncPolicy, Timestamp } from "./common.ts";

/** The environment's game config; `unchanged` leaves out data the client already holds (docs/api-rules.md#sync-policy-and-game-config). */
export const GameConfig = z
  .object({
    enabled: z
      .boolean()
      .describe("False until operators publish a config, and while they disable it (`version` 0, no `data`)."),
    unchanged: z
      .boolean()
      .optional()
      .describe("True when `gameConfigVersion` was the active version: `data` is then left out; keep your copy."),
    version: z.int().min(0).describe("Goes up by 1 on every publish: send it back as `gameConfigVersion`."),
    checksum: z.string().optional().describe("`sha256:<hex>` of the stored config's bytes."),
    sizeBytes: z.int().min(0).describe("The stored config's size in bytes."),
    publishedAt: Timestamp.optional().describe("When this version was published."),
    data: freeForm().optional().describe("The config object as published."),
  })
  .meta({ id: "GameConfig" });

export const RuntimeConfigQuery = z.object({ gameConfigVersion: z.coerce.number().int().min(1).optional() });

export const RuntimeConfigResponse = z
  .object({ syncPolicy: SyncPolicy, gameConfig: GameConfig.optional() })
  .meta({ id: "RuntimeConfigResponse" });

export const HealthResponse = z.object({ ok: z.boolean() }).meta({ id: "HealthResponse" });

export const WebhookEvent = freeForm().meta({ id: "StripeEvent", description: "A signed Stripe event." });
export const WebhookResponse = z.object({ received: z.boolean() }).meta({ id: "WebhookResponse" });

/** A save id of the save-based model; `.` and `..` cannot be addressed (docs/api-rules.md#the-save-based-model). */
export const SaveId = pathId(/^[A-Za-z0-9_.-]{1,128}$/, "must be 1 to 128 characters of A-Z a-z 0-9 _ . -");

export const Save = z
  .object({
    saveId: z.string().describe("The save's id, the `{saveId}` of its routes; make it unguessable."),
    externalUserId: z.string().describe("Your player's id, set when the save was created; it never changes."),
    metadata: freeForm().describe("A small summary of the save (level, play time, ...), exactly as last written."),
    state: freeForm().describe("The full save, exactly as last written."),
    version: z.int().describe("The save's version: send it as `baseVersion` on the next sync."),
    createdAt: Timestamp.describe("When the save was created."),
    updatedAt: Timestamp.describe("When the save was last written."),
  })
  .meta({ id: "Save" });

export const SaveSyncRequest = z
  .strictObject({
    baseVersion: z.int().min(0).describe("The save `version` this change was made on; 0 creates the save."),
    metadata: freeForm(Limits.slotInfoBytes)
      .optional()
      .describe("A small summary, at most 16,384 bytes as JSON; omitted, the stored one is kept."),
    state: freeForm(Limits.slotDataBytes)
      .optional()
      .describe("The whole save, at most 262,144 bytes as JSON; omitted, the stored one is kept."),
    externalUserId: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe("Your player's id: required when creating, and it can never change."),
  })
  .meta({ id: "SaveSyncRequest" });

export type Save = z.infer<typeof Save>;
export type SaveSyncRequest = z.infer<typeof SaveSyncRequest>;

export const SaveResponse = z.object({ save: Save }).meta({ id: "SaveResponse" });

export const SaveSyncResponse = z
  .object({ status: z.literal("accepted"), save: Save })
  .meta({ id: "SaveSyncResponse" });

export const SaveConflictResponse = z
  .object({
    status: z.literal("conflict").describe("Nothing was written: `baseVersion` was not the save's current version."),
    save: Save.describe(
      "The canonical save: replace the local copy with it, then apply the player's change again if needed.",
    ),
    details: z
      .object({
        reason: z.literal("base_version_mismatch"),
        clientBaseVersion: z.int().describe("The `baseVersion` you sent."),
      })
      .describe("Why the write was refused."),
  })
  .meta({ id: "SaveConflictResponse" });
