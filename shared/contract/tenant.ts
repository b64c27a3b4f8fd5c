import { z } from "zod";
import { AccountId, Environment, SyncPolicy } from "./common.ts";
import { PlanName } from "../plans.ts";
import { ProjectSettings } from "./settings.ts";

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
  /** Since when the workspace's subscription is past due: 402 on runtime routes after 7 days. */
  pastDueSince: z.iso.datetime().optional(),
  syncPolicy: SyncPolicy,
  settings: ProjectSettings,
});
export type Tenant = z.infer<typeof Tenant>;

/** The account session the gateway resolved: never the token itself. */
export const SessionActor = z.object({ sessionId: z.string(), accountId: AccountId });
export type SessionActor = z.infer<typeof SessionActor>;

/** Where a request came from, as the gateway established it (trusted proxies resolved). */
export const ClientInfo = z.object({ ip: z.string() });
export type ClientInfo = z.infer<typeof ClientInfo>;

export const envIdOf = (projectId: string, environment: Environment) => `${projectId}:${environment}`;
