import { type SyncPolicy, SyncPolicy as SyncPolicySchema } from "../../shared/contract/common.ts";
import type { Deps } from "./deps.ts";
import { patchProjectJson } from "./patch-project.ts";

/** Changes some fields of a project's sync policy; gateways drop their cached copy at once. */
export const setSyncPolicy = (deps: Deps, projectId: string, patch: Partial<SyncPolicy>): Promise<SyncPolicy> =>
  patchProjectJson(deps, projectId, "syncPolicy", (project) => SyncPolicySchema.parse({ ...JSON.parse(project.syncPolicy), ...patch }));
