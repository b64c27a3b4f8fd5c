import { dropEverywhere } from "../../shared/bus/cache-drops.ts";
import { fail } from "../../shared/contract/errors.ts";
import { events } from "../../shared/contract/internal.ts";
import type { Deps } from "./service.ts";
import type { ProjectDoc } from "./repo.ts";
import { maxRounds } from "./rounds.ts";

/**
 * Rewrites one of a project's JSON fields (`syncPolicy`, `settings`) from what is stored: a write
 * conditional on the value read, so two concurrent patches both land. Gateways drop their cached
 * tenants before the answer.
 */
export async function patchProjectJson<T>(deps: Deps, projectId: string, field: "syncPolicy" | "settings", next: (project: ProjectDoc) => T): Promise<T> {
  for (let round = 0; round < maxRounds; round++) {
    const project = await deps.repo.projects.get(projectId);
    if (!project) throw fail.notFound("Project");
    const value = next(project);
    const updated = await deps.repo.projects.update({ _id: projectId, [field]: project[field] ?? null }, { [field]: JSON.stringify(value), updatedAt: deps.now().toISOString() });
    if (updated) {
      await dropEverywhere(deps.bus, events.tenantsChanged, { projectId });
      return value;
    }
  }
  throw fail.serviceUnavailable();
}
