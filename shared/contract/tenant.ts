import { z } from "zod";
import { AccountId, Environment, SyncPolicy } from "./common.ts";
import { PlanName } from "./plans.ts";
import { ProjectSettings } from "./settings.ts";

/** A workspace's runtime allowance in one environment (docs/api-rules.md#limits-and-plans); null is unlimited. */
export const Entitlements = z.object({
  /** Unpaid, or past due for more than 7 days: every runtime route answers 402. */
  paymentRequired: z.boolean(),
  monthlyRequests: z.int().positive().nullable(),
  perMinute: z.int().positive().nullable(),
});
export type Entitlements = z.infer<typeof Entitlements>;

/**
 * Who is calling, as the gateway established it from the runtime key. Services trust it and never
 * see the raw key.
 */
export const Tenant = z.object({
  workspaceId: z.string(),
  projectId: z.string(),
  environment: Environment,
  /** `<projectId>:<environment>`: the scope every runtime record belongs to. */
  envId: z.string(),
  keyId: z.string(),
  plan: PlanName,
  billingStatus: z.string(),
  /** What the plan and billing allow, as config decided it: the gateway only counts and compares. */
  entitlements: Entitlements,
  syncPolicy: SyncPolicy,
  settings: ProjectSettings,
});
export type Tenant = z.infer<typeof Tenant>;

/** The account session the gateway resolved: never the token itself. */
export const SessionActor = z.object({ sessionId: z.string(), accountId: AccountId });
export type SessionActor = z.infer<typeof SessionActor>;

/** Where a request came from, as the gateway established it (trusted proxies resolved). */
/** Who sent an admin request, as the audit log names it (`actor`), for records that keep their author. */
export const ClientInfo = z.object({ ip: z.string(), actor: z.string().optional() });
export type ClientInfo = z.infer<typeof ClientInfo>;

export const envIdOf = (projectId: string, environment: Environment) => `${projectId}:${environment}`;
