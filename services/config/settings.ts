import { fail } from "../../shared/contract/errors.ts";
import { events } from "../../shared/contract/internal.ts";
import { type ProjectSettings, ProjectSettings as ProjectSettingsSchema, defaultProjectSettings } from "../../shared/contract/settings.ts";
import type { Deps } from "./deps.ts";
import type { ProjectDoc } from "./repo.ts";
import { maxRounds } from "./rounds.ts";

/** A project's settings, the defaults until an operator changed them. */
export const settingsOf = (project: ProjectDoc): ProjectSettings => (project.settings ? ProjectSettingsSchema.parse(JSON.parse(project.settings)) : defaultProjectSettings);

/** Changes some of a project's settings; gateways drop their cached tenants at once. */
export async function setSettings(deps: Deps, projectId: string, patch: { transferCodeTtlSeconds?: number; rateLimits?: Partial<ProjectSettings["rateLimits"]> }): Promise<ProjectSettings> {
  for (let attempt = 0; attempt < maxRounds; attempt++) {
    const project = await deps.repo.projects.get(projectId);
    if (!project) throw fail.notFound("Project");
    const current = settingsOf(project);
    const next = ProjectSettingsSchema.parse({ ...current, ...patch, rateLimits: { ...current.rateLimits, ...patch.rateLimits } });
    // Conditional on the settings read, so two concurrent patches both land.
    const updated = await deps.repo.projects.update({ _id: projectId, settings: project.settings ?? null }, { settings: JSON.stringify(next), updatedAt: deps.now().toISOString() });
    if (updated) {
      deps.bus.publish(events.tenantsChanged.subject, { projectId });
      return next;
    }
  }
  throw fail.serviceUnavailable();
}
