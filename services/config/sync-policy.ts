import { type SyncPolicy, SyncPolicy as SyncPolicySchema } from "../../shared/contract/common.ts";
import { fail } from "../../shared/contract/errors.ts";
import { events } from "../../shared/contract/internal.ts";
import type { Deps } from "./deps.ts";
import { maxRounds } from "./rounds.ts";

/** Changes some fields of a project's sync policy; gateways drop their cached copy at once. */
export async function setSyncPolicy(deps: Deps, projectId: string, patch: Partial<SyncPolicy>): Promise<SyncPolicy> {
  for (let attempt = 0; attempt < maxRounds; attempt++) {
    const project = await deps.repo.projects.get(projectId);
    if (!project) throw fail.notFound("Project");
    const next = SyncPolicySchema.parse({ ...JSON.parse(project.syncPolicy), ...patch });
    // Conditional on the policy we read, so two concurrent patches both land.
    const updated = await deps.repo.projects.update(
      { _id: projectId, syncPolicy: project.syncPolicy },
      { syncPolicy: JSON.stringify(next), updatedAt: deps.now().toISOString() },
    );
    if (updated) {
      deps.bus.publish(events.tenantsChanged.subject, { projectId });
      return next;
    }
  }
  throw fail.serviceUnavailable();
}
