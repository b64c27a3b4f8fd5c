import type { RouteDocs } from "../route.ts";

/** What the health, runtime-config, billing and save-based routes do and guarantee, and the errors only they answer with. */
export const runtimeDocs = {
  health: {
    description:
      "Answers `{ok: true}` while the gateway runs, with no credentials and counted in no quota: for load balancers and uptime checks. " +
      "It does not ask the services or the store (`/readyz` does).",
    errorCases: [
      {
        code: "invalid_request",
        when: "The Host header cannot name a host (answered before any route, on every path).",
      },
    ],
  },
  runtimeConfig: {
    description:
      "Answers the project's sync policy, which tells the client SDK how often to sync, and the environment's game config. Send the " +
      "game config `version` you hold as `gameConfigVersion`: when it is still the active one, `gameConfig` comes back with " +
      "`unchanged: true` and without `data`. The answer carries an `ETag`; with `If-None-Match` of an unchanged answer it is 304 with no body. " +
      "Read it at start and now and then: operators can change both at any time.",
    errorCases: [],
  },
  stripeWebhook: {
    description:
      "Receives Stripe events signed with the endpoint secret (`Stripe-Signature`, within 300 seconds) and updates the workspace's plan, " +
      "billing status and entitlements. Each event id is applied once, and an event older than the last one applied to a subscription never " +
      "rolls it back, and a deleted subscription never becomes active again; the workspace follows its customer's best live subscription. " +
      "A subscription made through Stripe's API names its workspace in `metadata.workspaceId`. Events it does not handle answer " +
      "`{received: false}`. It takes no runtime key and sends no CORS headers.",
    errorCases: [
      {
        code: "invalid_signature",
        when: "`Stripe-Signature` is missing or wrong, or its timestamp is more than 300 seconds away.",
      },
      { code: "invalid_request", when: "The signed body is not a Stripe event (`details.issues`)." },
      { code: "internal_error", when: "The billing store is unavailable: Stripe retries the event later." },
      {
        code: "rate_limited",
        when: "This client IP posted 10 events with a bad signature this minute (`details.scope` `client_ip`); correctly signed events still apply.",
      },
      {
        code: "webhook_not_configured",
        when: "`STRIPE_WEBHOOK_SECRET` is not set on this server, so no event can be verified; the message says what to set.",
      },
    ],
  },
  syncSave: {
    description:
      "The save-based model: one save per id, no account and no session, with the runtime key alone. `baseVersion` 0 creates the save at " +
      "version 1 (with `externalUserId`); the current version is accepted as the next one, and an omitted `metadata` or `state` keeps the " +
      "stored one. Every answer, accepted or conflict, carries the canonical `save`: the client replaces its local copy with it. Of " +
      "concurrent writers from one base, exactly one is accepted. Anyone with the runtime key can address any save id: make ids unguessable.",
    errorCases: [
      {
        code: "invalid_request",
        when: "`externalUserId` is missing when creating, or differs from the save's (it never changes).",
      },
      {
        code: "not_found",
        when: "`baseVersion` is above 0 and no save has this id, also when it was deleted while this sync ran.",
      },
      {
        code: "conflict",
        when:
          "`baseVersion` is not the current version, or 0 over an existing save. The body is `status: " +
          '"conflict"` with the canonical `save`.',
      },
      {
        code: "payload_too_large",
        when: "`state` is over 262,144 bytes or `metadata` over 16,384, as UTF-8 JSON (`details.field`).",
      },
    ],
  },
  getSave: {
    description:
      "Loads the canonical save with this id: the same `save` a sync answers with. Saves belong to one environment.",
    errorCases: [{ code: "not_found", when: "No save has this id in this environment." }],
  },
  deleteSave: {
    description:
      "Erases the save with this id and its restore points, for a player's erasure request: only the id and when it was deleted are " +
      "kept, so a second delete answers 200 with `alreadyDeleted: true` and the first `deletedAt`. The id can be used again: a sync " +
      "with `baseVersion` 0 creates a new save at version 1. Anyone with the runtime key can address any save id: make ids unguessable.",
    errorCases: [{ code: "not_found", when: "No save ever had this id in this environment." }],
  },
} satisfies Record<string, RouteDocs>;
