import type { Environment } from "../../shared/contract/common.ts";
import type { PlanName } from "../../shared/plans.ts";
import type { Collection, Store } from "../../shared/store/port.ts";

export type WorkspaceDoc = { _id: string; name: string; plan: PlanName; billingStatus: string; createdAt: string };
/** `syncPolicy` is serialized JSON, like every nested value in the stores. */
export type ProjectDoc = { _id: string; workspaceId: string; name: string; syncPolicy: string; createdAt: string; updatedAt: string };
/** Keyed by id; the key itself is stored only as its SHA-256. */
export type RuntimeKeyDoc = {
  _id: string;
  keyHash: string;
  workspaceId: string;
  projectId: string;
  environment: Environment;
  label?: string;
  createdAt: string;
  revokedAt?: string;
};

export interface Repo {
  workspaces: Collection<WorkspaceDoc>;
  projects: Collection<ProjectDoc>;
  runtimeKeys: Collection<RuntimeKeyDoc>;
}

export async function openRepo(store: Store): Promise<Repo> {
  return {
    workspaces: await store.collection<WorkspaceDoc>("workspaces"),
    projects: await store.collection<ProjectDoc>("projects", [{ name: "workspace", fields: ["workspaceId"] }]),
    runtimeKeys: await store.collection<RuntimeKeyDoc>("runtimeKeys", [{ name: "key_hash", fields: ["keyHash"], unique: true }]),
  };
}
