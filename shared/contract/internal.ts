import { z } from "zod";
import { AccountResponse, SlotResponse } from "./accounts.ts";
import { AdminLink, BillingStatus, Workspace } from "./admin.ts";
import { AccountId, DeviceLabel } from "./common.ts";
import { AuditEntry } from "./operator.ts";
import { ResolvedOperator } from "./operators.ts";
import { PlanName } from "./plans.ts";
import { SessionIdleDays } from "./settings.ts";
import { Tenant } from "./tenant.ts";

/** A bus endpoint that no HTTP route maps to one-to-one: subject plus request and reply schemas. */
export interface Endpoint<Req extends z.ZodType, Res extends z.ZodType> {
  readonly subject: string;
  readonly request: Req;
  readonly reply: Res;
}
const endpoint = <Req extends z.ZodType, Res extends z.ZodType>(
  subject: string,
  request: Req,
  reply: Res,
): Endpoint<Req, Res> => ({
  subject,
  request,
  reply,
});

export const AccountStatus = z.enum(["active", "suspended", "deleted"]);
export type AccountStatus = z.infer<typeof AccountStatus>;

/** `expiresAt`: when the session expires if unused from now on; a gateway caches it no longer. */
export const ResolvedSession = z.object({
  sessionId: z.string(),
  accountId: AccountId,
  accountStatus: AccountStatus,
  expiresAt: z.iso.datetime(),
});
export type ResolvedSession = z.infer<typeof ResolvedSession>;

/** Endpoints the gateway uses to authenticate; it sends hashes, never raw credentials. */
export const internal = {
  resolveRuntimeKey: endpoint("config.runtime-key.resolve", z.object({ keyHash: z.string().length(64) }), Tenant),
  resolveSession: endpoint(
    "accounts.session.resolve",
    z.object({ envId: z.string(), tokenHash: z.string().length(64), sessionIdleDays: SessionIdleDays }),
    ResolvedSession,
  ),
  /** A new device session for an account (transfer codes, later provider sign-in). */
  issueSession: endpoint(
    "accounts.session.issue",
    z.object({
      envId: z.string(),
      accountId: AccountId,
      deviceLabel: DeviceLabel.optional(),
      /** The project's `sessionIdleDays`: the new session's first deadline. Optional while older copies send none. */
      sessionIdleDays: z.int().min(1).optional(),
      /** The session that asked for this one, or made its transfer code: the session cap never revokes it for this one. */
      keepSessionId: z.string().optional(),
    }),
    z.object({ accountId: AccountId, accountSessionToken: z.string(), account: AccountResponse }),
  ),
  /**
   * A new empty account with its first device session (a first sign-in with a provider), under the id
   * the identity's link reserved. When that account is open already, a new session on it: `opened` false.
   */
  openAccount: endpoint(
    "accounts.account.open",
    z.object({ tenant: Tenant, deviceLabel: DeviceLabel.optional(), accountId: AccountId }),
    z.object({ accountId: AccountId, accountSessionToken: z.string(), account: AccountResponse, opened: z.boolean() }),
  ),
  /**
   * What a replayed answer carrying a session token (routes 3, 4, 10) shows now: the account, and its
   * active slot `slotId`. 410 once the account is deleted, 401 once that session is revoked or expired.
   */
  replayView: endpoint(
    "accounts.session.replay-view",
    z.object({
      envId: z.string(),
      accountId: AccountId,
      tokenHash: z.string().length(64),
      sessionIdleDays: SessionIdleDays,
      slotId: z.string().optional(),
    }),
    z.object({ account: AccountResponse, slot: SlotResponse.optional() }),
  ),
  /** The account's identity links, for the operator view. */
  listLinks: endpoint("auth-bridge.account.links", z.object({ accountId: AccountId }), z.array(AdminLink)),
  /** Erases a deleted account's identity links; run by the accounts cleanup worker. */
  eraseLinks: endpoint(
    "auth-bridge.account.erase",
    z.object({ accountId: AccountId }),
    z.object({ erased: z.int().min(0) }),
  ),
  /** Billing tells config a workspace's plan and billing state; gateways drop cached tenants. */
  setWorkspaceBilling: endpoint(
    "config.workspace.set-billing",
    z.object({
      workspaceId: z.string(),
      plan: PlanName.optional(),
      billingStatus: BillingStatus.optional(),
      /** Since when it is past due; null clears it. */
      pastDueSince: z.iso.datetime().nullable().optional(),
      stripeCustomerId: z.string().optional(),
    }),
    Workspace,
  ),
  /**
   * Gateways report counted events in batches and learn the totals of every copy: `scope` names what is
   * counted (failed admin tokens by client IP, `admin-failures:<ip>`), `window` the minute. Request
   * limits are claimed instead (`claimUsage`), so they hold exactly.
   */
  reportUsage: endpoint(
    "billing.usage.report",
    z.object({
      counts: z.array(
        z.object({
          scope: z.string(),
          window: z.string(),
          n: z.int().min(0),
          /** How many days after the window began its total is still needed (then it is pruned). */
          keepDays: z.int().min(1).max(400),
        }),
      ),
    }),
    z.object({ totals: z.array(z.object({ scope: z.string(), window: z.string(), n: z.int().min(0) })) }),
  ),
  /**
   * A gateway copy claims a block of units of a limit before it admits requests from it (docs/plans-and-limits.md):
   * `want` more of the window's `limit`, less what the same scope used in the window `less` (the
   * previous minute, for a burst shared by two minutes). Billing grants what is left of the limit, so
   * the units granted to all copies together never pass it. `want` 0 only reads.
   */
  claimUsage: endpoint(
    "billing.usage.claim",
    z.object({
      scope: z.string(),
      window: z.string(),
      want: z.int().min(0),
      limit: z.int().min(0),
      less: z.string().optional(),
      /** How many days after the window began its total is still needed (then it is pruned). */
      keepDays: z.int().min(1).max(400),
    }),
    z.object({
      /** Units granted, numbered from `from`: the window's claims before this one. */
      granted: z.int().min(0),
      from: z.int().min(0),
      /** Every copy's claims in the window so far, this one included (may pass the limit: those were not granted). */
      total: z.int().min(0),
      /** What `less` took off the limit. */
      lowered: z.int().min(0),
    }),
  ),
  /** A gateway records one admin change in the audit log, which config keeps (docs/console.md). */
  recordAudit: endpoint(
    "config.audit.record",
    AuditEntry.omit({ auditId: true, at: true }),
    z.object({ auditId: z.string() }),
  ),
  /** The operator a token (by hash) or a console session (by id) acts as; 401 when unknown or revoked. */
  resolveOperator: endpoint(
    "config.operator.resolve",
    z.union([z.object({ tokenHash: z.string().length(64) }), z.object({ operatorId: z.string().max(64) })]),
    ResolvedOperator,
  ),
  /** A console sign-out: that session is refused on every gateway copy until it would have expired anyway. */
  consoleSignOut: endpoint(
    "config.console.sign-out",
    z.object({ sid: z.string().max(64), expiresAt: z.int() }),
    z.object({ signedOut: z.literal(true) }),
  ),
  consoleSignedOut: endpoint(
    "config.console.signed-out",
    z.object({ sid: z.string().max(64) }),
    z.object({ signedOut: z.boolean() }),
  ),
  /** Erases a deleted account's transfer codes; run by the accounts cleanup worker. */
  eraseTransferCodes: endpoint(
    "transfer.account.erase",
    z.object({ accountId: AccountId }),
    z.object({ erased: z.int().min(0) }),
  ),
};

/** Cache drops: every live gateway copy confirms each one before its publisher answers (shared/revocation/cache-drops.ts). */
export const events = {
  /** A runtime key, project or workspace changed: cached tenants are stale. */
  tenantsChanged: { subject: "events.config.tenants-changed", schema: z.object({ projectId: z.string().optional() }) },
  /** An operator was revoked: cached operators are stale. */
  operatorsChanged: { subject: "events.config.operators-changed", schema: z.object({ operatorId: z.string() }) },
  /** An account's sessions were revoked, or its status changed. */
  sessionsChanged: { subject: "events.accounts.sessions-changed", schema: z.object({ accountId: AccountId }) },
} as const;

/** Durable work queues. */
export const queues = {
  cleanup: {
    name: "cleanup",
    schema: z.object({ kind: z.enum(["account", "slot"]), id: z.string() }),
  },
} as const;
export type CleanupJob = z.infer<typeof queues.cleanup.schema>;
