import { z } from "zod";
import { AccountId, DeviceLabel, SyncPolicy, Timestamp } from "./common.ts";

/** The identity providers a player may sign in with, by their own names (docs/api-rules.md#identity-providers). */
export const AuthProvider = z.enum(["firebase", "supabase", "auth0"]).meta({ id: "AuthProvider" });
export type AuthProvider = z.infer<typeof AuthProvider>;

export const LinkedAuthProvider = z
  .object({
    provider: AuthProvider,
    display: z.strictObject({ label: z.string(), emailHint: z.string().optional() }),
    linkedAt: Timestamp,
    lastUsedAt: Timestamp.optional(),
  })
  .meta({ id: "LinkedAuthProvider" });

/** The provider is checked by the auth bridge, so an unknown one is `provider_not_supported`, not a schema error. */
export const AuthSessionRequest = z
  .strictObject({
    provider: z.string().max(64),
    token: z.string().min(1).max(16_384),
    deviceLabel: DeviceLabel.optional(),
  })
  .meta({ id: "AuthSessionRequest" });

export const AuthSessionResponse = z
  .object({
    accountId: AccountId,
    accountSessionToken: z.string(),
    isNewAccount: z.boolean(),
    linkedProvider: AuthProvider,
    wasProviderNewForAccount: z.boolean(),
    syncPolicy: SyncPolicy.optional(),
  })
  .meta({ id: "AuthSessionResponse" });
export type AuthSessionResponse = z.infer<typeof AuthSessionResponse>;

export const LinkedProviderList = z.array(LinkedAuthProvider).meta({ id: "LinkedProviderList" });

/** Transfer-code lifetimes (docs/api-rules.md#transfer-codes): a request's ttlSeconds is clamped, not refused. */
export const TransferCodeTtl = { defaultSeconds: 600, minSeconds: 60, maxSeconds: 1800 } as const;

/** Route 9's optional body: a device label and a lifetime, clamped rather than refused (docs/api-rules.md#transfer-codes). */
export const CreateTransferCodeRequest = z
  .strictObject({
    deviceLabel: DeviceLabel.optional(),
    ttlSeconds: z
      .int()
      .optional()
      .meta({
        description:
          `Requested lifetime; clamped to [${TransferCodeTtl.minSeconds}, ${TransferCodeTtl.maxSeconds}] and to the project's maximum. ` +
          `Default ${TransferCodeTtl.defaultSeconds}.`,
      }),
  })
  .meta({ id: "CreateTransferCodeRequest" });

export const CreateTransferCodeResponse = z
  .object({ transferCode: z.string(), expiresAt: Timestamp, expiresInSeconds: z.int().min(1) })
  .meta({ id: "CreateTransferCodeResponse" });
export type CreateTransferCodeResponse = z.infer<typeof CreateTransferCodeResponse>;

export const ConsumeTransferCodeRequest = z
  .strictObject({ transferCode: z.string().min(1).max(64), deviceLabel: DeviceLabel.optional() })
  .meta({ id: "ConsumeTransferCodeRequest" });
