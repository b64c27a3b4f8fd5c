import type { RouteDocs } from "../route.ts";

const replayGone =
  "A retry with the `Idempotency-Key` of an earlier answer whose account has since been deleted: no session token of it is handed out again.";
const replayRevoked = "A retry with the `Idempotency-Key` of an earlier answer whose session has since been revoked.";

/** What the identity-provider and transfer-code routes do and guarantee, and the errors only they answer with. */
export const identityDocs = {
  authSession: {
    description:
      "Verifies a token of an identity provider configured for the environment (`firebase`, `supabase`, `auth0`) and answers a new device " +
      "session. Without a current session: the first sign-in of an identity opens a new account linked to it (`isNewAccount: true`), later " +
      "ones sign in to the linked account. With a current session (`X-Service-Account-ID` and `X-Service-Account-Session`), it links the " +
      "identity to that account instead. The raw token and the identity's subject are never stored or logged. Prod keys of a `free` " +
      "workspace are refused before any token is checked; stage keys work on every plan.",
    errorCases: [
      {
        code: "provider_not_supported",
        when: "`provider` is none of `firebase`, `supabase`, `auth0` (`details.field`).",
      },
      {
        code: "firebase_token_invalid",
        when:
          "The token fails verification: bad signature, expired, malformed or a refused algorithm (likewise " +
          "`supabase_` and `auth0_token_invalid`).",
      },
      {
        code: "firebase_project_mismatch",
        when:
          "The token was issued for another project, tenant or audience (likewise `supabase_` and " +
          "`auth0_project_mismatch`).",
      },
      {
        code: "auth_bridge_requires_paid_plan",
        when: "A prod runtime key of a workspace on the `free` plan (`details.environment`, `plan`, `upgradePath`).",
      },
      {
        code: "provider_not_configured",
        when: "The provider is not set up for this environment (`details.provider`).",
      },
      { code: "provider_not_enabled", when: "The provider is set up but disabled for this environment." },
      {
        code: "account_auth_conflict",
        when:
          "The identity is linked to another account, or the current account is linked to another identity of " +
          "this provider.",
      },
      {
        code: "account_deleted",
        when: `The identity's account has been deleted, or ${replayGone.charAt(0).toLowerCase()}${replayGone.slice(1)}`,
      },
      { code: "unauthorized", when: replayRevoked },
      {
        code: "rate_limited",
        when: "This client IP made the project's number of exchanges this minute (30 by default).",
      },
      { code: "service_unavailable", when: "The provider's public key set cannot be fetched." },
    ],
  },
  authProviders: {
    description:
      "Lists the identity providers linked to the session's account: provider, a display label, a masked email hint, when linked and last " +
      "used. Only safe metadata: never the provider's subject, a hash, a token, or any save data.",
    errorCases: [],
  },
  createTransferCode: {
    description:
      "Issues a one-time code that moves this account to another device, from a session on the device that has it. The code (10 " +
      "characters shown as `XXXXX-XXXXX`) is shown once, stored only as a keyed hash, and lives `ttlSeconds` (default 600; clamped to " +
      "60..1800 and the project's maximum, never refused). An account holds at most 5 unused codes: a sixth retires the oldest. A code is " +
      "temporary access to the saves, not a password.",
    errorCases: [],
  },
  consumeTransferCode: {
    description:
      "Exchanges a transfer code for a new session of the same account on this device, with only the runtime key. The code is read " +
      "case-insensitively, ignoring spaces and hyphens. Consumption is atomic: of concurrent consumes of one code exactly one succeeds. " +
      "The other devices' sessions stay valid. It is no lookup by `playerRef`, `externalAccountRef` or any name.",
    errorCases: [
      { code: "transfer_code_invalid", when: "The code is unknown, malformed, retired, or of another environment." },
      { code: "transfer_code_expired", when: "The code's lifetime is over: create a new one on the old device." },
      { code: "transfer_code_consumed", when: "The code has already been used." },
      {
        code: "account_deleted",
        when: `The code's account has been deleted since it was issued, or ${replayGone.charAt(0).toLowerCase()}${replayGone.slice(1)}`,
      },
      { code: "unauthorized", when: replayRevoked },
      {
        code: "transfer_code_rate_limited",
        when:
          "This client (an IPv4 address, or an IPv6 /64) made 10 failed attempts in 10 minutes (the right code is refused too " +
          "until then), or failed before in its window while the runtime key has had 60 failed attempts this minute; with `Retry-After`.",
      },
    ],
  },
} satisfies Record<string, RouteDocs>;
