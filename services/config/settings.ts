import {
  type AllowedOrigins,
  defaultProjectSettings,
  type ProjectSettings,
  ProjectSettings as ProjectSettingsSchema,
} from "../../shared/contract/settings.ts";
import type { Deps } from "./deps.ts";
import { patchProjectJson } from "./patch-project.ts";
import type { ProjectDoc } from "./repo.ts";

/** A project's settings, the defaults until an operator changed them (also for a limit added since). */
export function settingsOf(project: ProjectDoc): ProjectSettings {
  if (!project.settings) return defaultProjectSettings;
  const stored = JSON.parse(project.settings);
  return ProjectSettingsSchema.parse({
    ...defaultProjectSettings,
    ...stored,
    rateLimits: { ...defaultProjectSettings.rateLimits, ...stored.rateLimits },
  });
}

/**
 * Changes some of a project's settings; gateways drop their cached tenants at once. Rate limits given
 * are merged into the current ones; `allowedOrigins`, when given, replaces the whole object.
 */
export const setSettings = (
  deps: Deps,
  projectId: string,
  patch: {
    transferCodeTtlSeconds?: number;
    rateLimits?: Partial<ProjectSettings["rateLimits"]>;
    allowedOrigins?: AllowedOrigins;
    sessionIdleDays?: number;
  },
): Promise<ProjectSettings> =>
  patchProjectJson(deps, projectId, "settings", (project) => {
    const current = settingsOf(project);
    return ProjectSettingsSchema.parse({
      ...current,
      ...patch,
      rateLimits: { ...current.rateLimits, ...patch.rateLimits },
    });
  });
