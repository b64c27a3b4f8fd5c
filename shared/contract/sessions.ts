import { z } from "zod";
import { AccountId, DeviceLabel, Timestamp } from "./common.ts";

/** The player's own devices (docs/using-the-api.md#sessions-and-devices): never a token or its hash. */
export const DeviceSession = z
  .object({
    sessionId: z.string(),
    deviceLabel: DeviceLabel.optional(),
    createdAt: Timestamp,
    lastUsedAt: Timestamp.optional(),
    /** The session this request was sent with. */
    current: z.boolean(),
  })
  .meta({ id: "DeviceSession" });

export const SessionListResponse = z
  .object({ accountId: AccountId, sessions: z.array(DeviceSession) })
  .meta({ id: "SessionListResponse" });
export type SessionListResponse = z.infer<typeof SessionListResponse>;

export const SignOutResponse = z
  .object({ sessionId: z.string(), revokedAt: Timestamp })
  .meta({ id: "SignOutResponse" });
export type SignOutResponse = z.infer<typeof SignOutResponse>;

export const SessionIdPattern = /^ses_[A-Za-z0-9]+$/;
export const SessionPath = z.strictObject({
  accountId: AccountId,
  sessionId: z.string().regex(SessionIdPattern, "must be a session id (ses_...)"),
});
