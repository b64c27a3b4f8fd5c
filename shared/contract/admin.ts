import { z } from "zod";
import { Environment, freeForm, SyncPolicy, Timestamp } from "./common.ts";
import { AuthProvider } from "./identity.ts";
import { PlanName } from "./plans.ts";
import { ProjectSettings } from "./settings.ts";
import { PolicyNote } from "./sync-policy-versions.ts";

export * from "./admin-accounts.ts";

const Name = z.string().trim().min(1).max(100);

export const CreateWorkspaceRequest = z
  .strictObject({ name: Name, plan: PlanName.optional() })
  .meta({ id: "CreateWorkspaceRequest" });
export const WorkspaceResponse = z
  .object({ workspaceId: z.string(), plan: PlanName })
  .meta({ id: "WorkspaceResponse" });

export const WorkspacePath = z.strictObject({ workspaceId: z.string().regex(/^wsp_[A-Za-z0-9]+$/) });
export const CreateProjectRequest = z.strictObject({ name: Name }).meta({ id: "CreateProjectRequest" });
export const ProjectResponse = z
  .object({ projectId: z.string(), environments: z.array(Environment) })
  .meta({ id: "ProjectResponse" });

export const ProjectPath = z.strictObject({ projectId: z.string().regex(/^prj_[A-Za-z0-9]+$/) });
export const ProjectEnvPath = ProjectPath.extend({ env: Environment });
export const CreateRuntimeKeyRequest = z
  .strictObject({ label: z.string().max(100).optional() })
  .meta({ id: "CreateRuntimeKeyRequest" });
export const RuntimeKeyResponse = z
  .object({ keyId: z.string(), runtimeKey: z.string() })
  .meta({ id: "RuntimeKeyResponse" });

export const KeyPath = z.strictObject({ keyId: z.string().regex(/^key_[A-Za-z0-9]+$/) });
export const RevokeRuntimeKeyResponse = z
  .object({ keyId: z.string(), revokedAt: Timestamp })
  .meta({ id: "RevokeRuntimeKeyResponse" });
/** One runtime key as operators see it: never the key or its hash. */
export const RuntimeKey = z
  .object({
    keyId: z.string(),
    projectId: z.string(),
    environment: Environment,
    label: z.string().optional(),
    createdAt: Timestamp,
    lastUsedAt: Timestamp.optional(),
    revokedAt: Timestamp.optional(),
  })
  .meta({ id: "RuntimeKey" });
/** One runtime key by id (`key get`, the audit of its writes): also its workspace. */
export const RuntimeKeyView = RuntimeKey.extend({ workspaceId: z.string() }).meta({ id: "RuntimeKeyView" });

// An empty change would be written and audited as one: refused instead (docs/api-rules.md#sync-policy-and-game-config).
// `note` says why, in the version it makes (sync-policy-versions.ts); a note alone changes nothing, so it is refused too.
export const SyncPolicyPatch = SyncPolicy.partial()
  .extend({ note: PolicyNote.optional() })
  .strict()
  .refine(
    (patch) => Object.keys(patch).some((k) => k !== "note"),
    "Give at least one field of the sync policy to change.",
  )
  .meta({ id: "SyncPolicyPatch", minProperties: 1 });

/** One identity provider of one environment (docs/api-rules.md#identity-providers). */
export const AuthProviderPath = ProjectEnvPath.extend({ provider: AuthProvider });
export const AuthProviderConfigRequest = z
  .strictObject({
    enabled: z.boolean(),
    /** Firebase: the Firebase project id. */
    projectId: z
      .string()
      .regex(/^[a-z0-9-]{1,64}$/, "must be a Firebase project id")
      .optional(),
    /** Supabase: the project ref, as in https://<projectRef>.supabase.co. */
    projectRef: z
      .string()
      .regex(/^[a-z0-9]{1,64}$/, "must be a Supabase project ref")
      .optional(),
    /** Auth0: the tenant's domain, as in https://<domain>/. */
    domain: z
      .string()
      .regex(/^[A-Za-z0-9.-]{1,253}$/, "must be a host name such as tenant.eu.auth0.com")
      .optional(),
    /** Auth0: the API audience tokens must be issued for. */
    audience: z.string().min(1).max(512).optional(),
    /** Overrides the provider's public key set (emulators, tests). */
    jwksUrl: z.url({ protocol: /^https?$/ }).optional(),
  })
  .meta({ id: "AuthProviderConfigRequest" });
export const AuthProviderConfig = AuthProviderConfigRequest.extend({
  provider: AuthProvider,
  environment: Environment,
  updatedAt: Timestamp,
})
  .strip()
  .meta({ id: "AuthProviderConfig" });
export type AuthProviderConfig = z.infer<typeof AuthProviderConfig>;

export const BillingStatus = z.enum([
  "active",
  "trialing",
  "past_due",
  "unpaid",
  "canceled",
  "incomplete",
  "incomplete_expired",
  "paused",
]);
export type BillingStatus = z.infer<typeof BillingStatus>;

export const Workspace = z
  .object({
    workspaceId: z.string(),
    name: z.string(),
    plan: PlanName,
    billingStatus: BillingStatus,
    pastDueSince: Timestamp.optional(),
    stripeCustomerId: z.string().optional(),
    createdAt: Timestamp,
  })
  .meta({ id: "Workspace" });
export type Workspace = z.infer<typeof Workspace>;
export const UpdateWorkspaceRequest = z
  .strictObject({ plan: PlanName.optional(), billingStatus: BillingStatus.optional() })
  .meta({ id: "UpdateWorkspaceRequest" });

/**
 * Which page of a listing to answer: `cursor` is the `next` of the page before. Listings of things an
 * operator creates (workspaces, projects) have no bound, so they are paged; the CLI follows `next`.
 */
export const ListQuery = z.object({
  cursor: z
    .string()
    .regex(/^\d{1,9}$/, "must be the next value of the page before")
    .optional(),
  limit: z.coerce.number().int().min(1).max(200).default(100),
});
export const WorkspaceList = z
  .object({ workspaces: z.array(Workspace), next: z.string().optional() })
  .meta({ id: "WorkspaceList" });

/** A project as operators see it: its workspace, its policy and its settings (the defaults until changed). */
export const Project = z
  .object({
    projectId: z.string(),
    workspaceId: z.string(),
    name: z.string(),
    environments: z.array(Environment),
    syncPolicy: SyncPolicy,
    settings: ProjectSettings,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "Project" });
export type Project = z.infer<typeof Project>;
export const ProjectList = z
  .object({ workspaceId: z.string(), projects: z.array(Project), next: z.string().optional() })
  .meta({ id: "ProjectList" });

export const RuntimeKeyList = z
  .object({
    projectId: z.string(),
    keys: z.array(
      z.object({
        keyId: z.string(),
        environment: Environment,
        label: z.string().optional(),
        createdAt: Timestamp,
        lastUsedAt: Timestamp.optional(),
        revokedAt: Timestamp.optional(),
      }),
    ),
  })
  .meta({ id: "RuntimeKeyList" });

/** A game config may be larger than a slot: levels, tables, tuning. */
export const gameConfigMaxBytes = 524_288;
export const PublishGameConfigRequest = z
  .strictObject({ data: freeForm(gameConfigMaxBytes), enabled: z.boolean().optional() })
  .meta({ id: "PublishGameConfigRequest" });
export const PublishedGameConfig = z
  .object({
    environment: Environment,
    enabled: z.boolean(),
    version: z.int().min(1),
    checksum: z.string(),
    sizeBytes: z.int().min(0),
    publishedAt: Timestamp,
  })
  .meta({ id: "PublishedGameConfig" });

/** A cleanup job that ran out of deliveries (docs/api-rules.md#deletion-and-cleanup): kept for an operator. */
export const DeadLetterPath = z.strictObject({
  deadLetterId: z.string().regex(/^[A-Za-z0-9_:.-]{1,200}$/, "must be a dead letter id, as listed"),
});
export const DeadLetter = z
  .object({
    deadLetterId: z.string(),
    queue: z.string(),
    /** The job as it was queued (or its raw text, when it was not valid JSON). */
    job: z.unknown(),
    deliveries: z.int(),
    /** The last failure's message. */
    error: z.string(),
    failedAt: Timestamp,
  })
  .meta({ id: "DeadLetter" });
export const DeadLetterList = z.object({ deadLetters: z.array(DeadLetter) }).meta({ id: "DeadLetterList" });
export const RetryDeadLetterResponse = z
  .object({ deadLetterId: z.string(), requeued: z.literal(true) })
  .meta({ id: "RetryDeadLetterResponse" });
export const DiscardDeadLetterResponse = z
  .object({ deadLetterId: z.string(), discarded: z.literal(true) })
  .meta({ id: "DiscardDeadLetterResponse" });
