import { type ProjectSettings, ProjectSettings as ProjectSettingsSchema, defaultProjectSettings } from "../../shared/contract/settings.ts";
import type { Deps } from "./deps.ts";
import type { ProjectDoc } from "./repo.ts";
import { patchProjectJson } from "./patch-project.ts";

/** A project's settings, the defaults until an operator changed them. */
export const settingsOf = (project: ProjectDoc): ProjectSettings => (project.settings ? ProjectSettingsSchema.parse(JSON.parse(project.settings)) : defaultProjectSettings);

/** Changes some of a project's settings; gateways drop their cached tenants at once. */
export const setSettings = (deps: Deps, projectId: string, patch: { transferCodeTtlSeconds?: number; rateLimits?: Partial<ProjectSettings["rateLimits"]> }): Promise<ProjectSettings> =>
  patchProjectJson(deps, projectId, "settings", (project) => {
    const current = settingsOf(project);
    return ProjectSettingsSchema.parse({ ...current, ...patch, rateLimits: { ...current.rateLimits, ...patch.rateLimits } });
  });
