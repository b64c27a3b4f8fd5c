import { fail } from "../../shared/contract/errors.ts";
import { events } from "../../shared/contract/internal.ts";
import { dropEverywhere } from "../../shared/revocation/cache-drops.ts";
import { updateInRounds } from "../../shared/store/versioned.ts";
import type { Deps } from "./deps.ts";
import type { ProjectDoc } from "./repo.ts";
import { maxRounds } from "./rounds.ts";

/**
 * Rewrites one of a project's JSON fields (`syncPolicy`, `settings`) from what is stored: a write
 * conditional on the value read, so two concurrent patches both land. Gateways drop their cached
 * tenants before the answer.
 */
export async function patchProjectJson<T>(
  deps: Deps,
  projectId: string,
  field: "syncPolicy" | "settings",
  next: (project: ProjectDoc) => T,
): Promise<T> {
  let value: T | undefined;
  await updateInRounds(
    deps.repo.projects,
    () => deps.repo.projects.get(projectId),
    (project) => {
      if (!project) throw fail.notFound("Project");
      value = next(project);
      return {
        where: { [field]: project[field] ?? null },
        changes: { [field]: JSON.stringify(value), updatedAt: deps.now().toISOString() },
      };
    },
    { rounds: maxRounds },
  );
  await dropEverywhere(deps.bus, events.tenantsChanged, { projectId });
  return value as T;
}
