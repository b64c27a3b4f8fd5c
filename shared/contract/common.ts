import { z } from "zod";
import { isJsonObject, requestJson, unfaithfulJson } from "../util/json.ts";

/** Byte limits of free-form fields (docs/api-rules.md#sizes-and-free-form-json). */
export const Limits = {
  accountDataBytes: 262_144,
  slotDataBytes: 262_144,
  slotInfoBytes: 16_384,
  requestBodyBytes: 1_048_576,
  deviceLabelChars: 80,
} as const;

export const AccountId = z
  .string()
  .max(128)
  .regex(/^acc_[A-Za-z0-9_.-]+$/, "must match ^acc_[A-Za-z0-9_.-]+$");
/**
 * An id used as a path segment. `.` and `..` match the contract's pattern but cannot be addressed:
 * clients turn them into the current or parent path (`/slots/..` is the account itself).
 */
export const pathId = (pattern: RegExp, message: string) =>
  z
    .string()
    .regex(pattern, message)
    .refine((id) => id !== "." && id !== "..", "must not be . or .. (clients read them as relative paths)");
export const SlotId = pathId(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1 to 64 characters of A-Z a-z 0-9 _ . -");
export const Version = z.int().min(1);
export const Timestamp = z.iso.datetime();
export const DeviceLabel = z.string().max(Limits.deviceLabelChars);

/** Issue params that turn a validation failure into 413 instead of 400. */
export interface TooLargeParams {
  tooLarge: true;
  limitBytes: number;
  actualBytes: number;
}

/**
 * A free-form JSON object, stored as serialized JSON and returned exactly as sent: any keys
 * (`__proto__` and `constructor` included, in the order sent), nothing JSON cannot carry faithfully.
 * The value passes through as parsed, never copied key by key: a copy would turn a `__proto__` key
 * into a prototype. With `maxBytes`, a value whose `JSON.stringify` is longer in UTF-8 fails with a
 * TooLargeParams issue.
 */
export function freeForm(maxBytes?: number) {
  const description =
    maxBytes === undefined ? "Free-form JSON object." : `Free-form JSON object, at most ${maxBytes} bytes as JSON.`;
  return z
    .custom<Record<string, unknown>>(isJsonObject, "must be a JSON object")
    .superRefine((value, ctx) => {
      const problem = unfaithfulJson(value);
      if (problem) return ctx.addIssue({ code: "custom", message: problem });
      if (maxBytes === undefined) return;
      const actualBytes = Buffer.byteLength(requestJson(value), "utf8");
      if (actualBytes > maxBytes) {
        const params: TooLargeParams = { tooLarge: true, limitBytes: maxBytes, actualBytes };
        ctx.addIssue({ code: "custom", message: `must be at most ${maxBytes} bytes as JSON`, params });
      }
    })
    .meta({ type: "object", additionalProperties: true, description } as Record<string, unknown>);
}

/** What a project's sync policy starts as; also the API reference's example. */
const syncPolicyDefaults = {
  minRemoteSyncIntervalSeconds: 60,
  forceSyncCooldownSeconds: 10,
  syncOnAppBackground: true,
  syncOnAppForeground: true,
  syncOnReconnect: true,
  maxQueuedLocalSnapshots: 25,
};

export const SyncPolicy = z
  .object({
    minRemoteSyncIntervalSeconds: z
      .int()
      .min(1)
      .describe(
        "The SDK syncs a slot or accountData at most once per this many seconds and keeps saving locally in between. " +
          "A sync sooner than this after the previous accepted one is still accepted, with the warning `sync_interval_below_policy`.",
      ),
    forceSyncCooldownSeconds: z
      .int()
      .min(1)
      .describe(
        'After a sync the game forces (a "save now" button, a level end), the SDK waits this many seconds before it honours another forced one.',
      ),
    syncOnAppBackground: z
      .boolean()
      .describe("The SDK syncs pending local changes when the app goes to the background, whatever the interval."),
    syncOnAppForeground: z
      .boolean()
      .describe("The SDK syncs when the app comes back to the foreground, to pick up changes made on another device."),
    syncOnReconnect: z.boolean().describe("The SDK syncs its queued changes as soon as the network comes back."),
    maxQueuedLocalSnapshots: z
      .int()
      .min(1)
      .describe(
        "The most local snapshots the SDK keeps queued while it cannot sync; past that it keeps the newest state, not every step.",
      ),
  })
  .meta({ id: "SyncPolicy", examples: [syncPolicyDefaults] });
export type SyncPolicy = z.infer<typeof SyncPolicy>;

export const defaultSyncPolicy: SyncPolicy = syncPolicyDefaults;

export const Environment = z.enum(["stage", "prod"]);
export type Environment = z.infer<typeof Environment>;
