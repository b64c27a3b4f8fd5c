import { z } from "zod";
import { Limits, SyncPolicy, Timestamp, freeForm, pathId } from "./common.ts";

/** Contract 2.5. */
export const GameConfig = z
  .object({
    enabled: z.boolean(),
    unchanged: z.boolean().optional(),
    version: z.int().min(0),
    checksum: z.string().optional(),
    sizeBytes: z.int().min(0),
    publishedAt: Timestamp.optional(),
    data: freeForm().optional(),
  })
  .meta({ id: "GameConfig" });

export const RuntimeConfigQuery = z.object({ gameConfigVersion: z.coerce.number().int().min(1).optional() });

export const RuntimeConfigResponse = z
  .object({ syncPolicy: SyncPolicy, gameConfig: GameConfig.optional() })
  .meta({ id: "RuntimeConfigResponse" });

export const HealthResponse = z.object({ ok: z.boolean() }).meta({ id: "HealthResponse" });

export const WebhookEvent = freeForm().meta({ id: "StripeEvent", description: "A signed Stripe event." });
export const WebhookResponse = z.object({ received: z.boolean() }).meta({ id: "WebhookResponse" });

/** Contract 2.12 and 4.18 with the decisions.md rules. */
export const SaveId = pathId(/^[A-Za-z0-9_.-]{1,128}$/, "must be 1 to 128 characters of A-Z a-z 0-9 _ . -");

export const Save = z
  .object({
    saveId: z.string(),
    externalUserId: z.string(),
    metadata: freeForm(),
    state: freeForm(),
    version: z.int(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "Save" });

export const SaveSyncRequest = z
  .strictObject({
    baseVersion: z.int().min(0),
    metadata: freeForm(Limits.slotInfoBytes).optional(),
    state: freeForm(Limits.slotDataBytes).optional(),
    externalUserId: z.string().min(1).max(128).optional(),
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
    status: z.literal("conflict"),
    save: Save,
    details: z.object({ reason: z.literal("base_version_mismatch"), clientBaseVersion: z.int() }),
  })
  .meta({ id: "SaveConflictResponse" });
