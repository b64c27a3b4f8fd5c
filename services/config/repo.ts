import type { BillingStatus } from "../../shared/contract/admin.ts";
import type { Environment } from "../../shared/contract/common.ts";
import type { PlanName } from "../../shared/contract/plans.ts";
import type { OperatorRole } from "../../shared/contract/route.ts";
import { type CollectionsOf, collection, openCollections } from "../../shared/store/collections.ts";
import type { Store } from "../../shared/store/port.ts";

export type WorkspaceDoc = {
  _id: string;
  name: string;
  plan: PlanName;
  billingStatus: BillingStatus;
  pastDueSince?: string | null;
  stripeCustomerId?: string;
  createdAt: string;
};
/**
 * `syncPolicy` and `settings` are serialized JSON, like every nested value in the stores. `syncPolicyVersion`
 * is the current policy's version; absent, the policy has never changed since versions were kept (version 1).
 */
export type ProjectDoc = {
  _id: string;
  workspaceId: string;
  name: string;
  syncPolicy: string;
  syncPolicyVersion?: number;
  settings?: string;
  createdAt: string;
  updatedAt: string;
};
/** Keyed by id; the key itself is stored only as its SHA-256. */
export type RuntimeKeyDoc = {
  _id: string;
  keyHash: string;
  workspaceId: string;
  projectId: string;
  environment: Environment;
  label?: string;
  createdAt: string;
  /** Written at most once a minute per key. */
  lastUsedAt?: string;
  revokedAt?: string;
};

/** The environment's game config, one document per environment (`_id` is the envId), replaced whole. */
export type GameConfigDoc = {
  _id: string;
  version: number;
  enabled: boolean;
  /** Serialized JSON: the stored bytes the checksum is over. */
  data: string;
  checksum: string;
  sizeBytes: number;
  publishedAt: string;
};

/** Every published version, kept for the console's list and rollback (`_id` is `<envId>#<version>`). */
export type GameConfigVersionDoc = Omit<GameConfigDoc, "_id"> & { _id: string; envId: string; rolledBackFrom?: number };

/** One version of a project's sync policy (`_id` is `<projectId>#<version>`); `policy` is serialized JSON. */
export type SyncPolicyVersionDoc = {
  _id: string;
  projectId: string;
  version: number;
  policy: string;
  author: string;
  note?: string;
  createdAt: string;
  rolledBackFrom?: number;
};

/** One admin change (docs/console.md); `day` lets retention prune whole days by equality. */
export type AuditDoc = {
  _id: string;
  at: string;
  day: string;
  actor: string;
  action: string;
  method: string;
  path: string;
  target: string;
  /** Serialized JSON, as every nested value in the stores. */
  targets: string;
  status: number;
  before: string;
  after: string;
  /** The operator's reason, where the change's route takes one (an edit of a player's data). */
  reason?: string;
};

/** A signed-out console session (`_id` is its id), kept until the day after it would have expired. */
export type ConsoleSignOutDoc = { _id: string; day: string };

/** A named operator (docs/api-rules.md#operators); its token is stored only as its SHA-256. */
export type OperatorDoc = {
  _id: string;
  tokenHash: string;
  name: string;
  role: OperatorRole;
  createdAt: string;
  createdBy: string;
  revokedAt?: string;
};

const collections = {
  workspaces: collection<WorkspaceDoc>("workspaces"),
  projects: collection<ProjectDoc>("projects", [{ name: "workspace", fields: ["workspaceId"] }]),
  runtimeKeys: collection<RuntimeKeyDoc>("runtimeKeys", [
    { name: "key_hash", fields: ["keyHash"], unique: true },
    { name: "project", fields: ["projectId"] },
  ]),
  gameConfigs: collection<GameConfigDoc>("gameConfigs"),
  gameConfigVersions: collection<GameConfigVersionDoc>("gameConfigVersions", [
    { name: "env_version", fields: ["envId", "version"] },
  ]),
  syncPolicyVersions: collection<SyncPolicyVersionDoc>("syncPolicyVersions", [
    { name: "project_version", fields: ["projectId", "version"] },
  ]),
  audit: collection<AuditDoc>("audit", [
    { name: "at", fields: ["at"] },
    { name: "target_at", fields: ["target", "at"] },
    { name: "action_at", fields: ["action", "at"] },
    { name: "day", fields: ["day"] },
  ]),
  consoleSignOuts: collection<ConsoleSignOutDoc>("consoleSignOuts", [{ name: "day", fields: ["day"] }]),
  operators: collection<OperatorDoc>("operators", [{ name: "token_hash", fields: ["tokenHash"], unique: true }]),
};

export type Repo = CollectionsOf<typeof collections>;

export const openRepo = (store: Store): Promise<Repo> => openCollections(store, collections);
