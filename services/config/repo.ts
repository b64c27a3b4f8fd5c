import type { BillingStatus } from "../../shared/contract/admin.ts";
import type { Environment } from "../../shared/contract/common.ts";
import type { PlanName } from "../../shared/plans.ts";
import type { Collection, Store } from "../../shared/store/port.ts";

export type WorkspaceDoc = {
  _id: string;
  name: string;
  plan: PlanName;
  billingStatus: BillingStatus;
  pastDueSince?: string | null;
  stripeCustomerId?: string;
  createdAt: string;
};
/** `syncPolicy` and `settings` are serialized JSON, like every nested value in the stores. */
export type ProjectDoc = { _id: string; workspaceId: string; name: string; syncPolicy: string; settings?: string; createdAt: string; updatedAt: string };
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

export interface Repo {
  workspaces: Collection<WorkspaceDoc>;
  projects: Collection<ProjectDoc>;
  runtimeKeys: Collection<RuntimeKeyDoc>;
  gameConfigs: Collection<GameConfigDoc>;
}

export async function openRepo(store: Store): Promise<Repo> {
  return {
    workspaces: await store.collection<WorkspaceDoc>("workspaces"),
    projects: await store.collection<ProjectDoc>("projects", [{ name: "workspace", fields: ["workspaceId"] }]),
    runtimeKeys: await store.collection<RuntimeKeyDoc>("runtimeKeys", [
      { name: "key_hash", fields: ["keyHash"], unique: true },
      { name: "project", fields: ["projectId"] },
    ]),
    gameConfigs: await store.collection<GameConfigDoc>("gameConfigs"),
  };
}
