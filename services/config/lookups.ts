import type { Project } from "../../shared/contract/admin.ts";
import type { SyncPolicy } from "../../shared/contract/common.ts";
import { fail } from "../../shared/contract/errors.ts";
import type { Deps } from "./deps.ts";
import type { ProjectDoc } from "./repo.ts";
import { settingsOf } from "./settings.ts";
import { workspaceView } from "./update-workspace.ts";

/** A page of a listing: `cursor` is how many came before; `next` is there while more follow. */
interface Page {
  cursor?: string;
  limit: number;
}

async function page<T>(list: (skip: number, limit: number) => Promise<T[]>, { cursor, limit }: Page) {
  const skip = Number(cursor ?? 0);
  // One more than asked tells whether a next page exists without counting the whole collection.
  const found = await list(skip, limit + 1);
  return { items: found.slice(0, limit), ...(found.length > limit ? { next: String(skip + limit) } : {}) };
}

const projectView = (p: ProjectDoc): Project => ({
  projectId: p._id,
  workspaceId: p.workspaceId,
  name: p.name,
  environments: ["stage", "prod"],
  syncPolicy: JSON.parse(p.syncPolicy) as SyncPolicy,
  settings: settingsOf(p),
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
});

/** Every workspace, oldest first: how an operator finds the ids the first start printed. */
export async function listWorkspaces(deps: Deps, query: Page) {
  const { items, next } = await page(
    (skip, limit) => deps.repo.workspaces.find({}, { sort: { field: "createdAt", direction: 1 }, skip, limit }),
    query,
  );
  return { workspaces: items.map(workspaceView), ...(next ? { next } : {}) };
}

export async function getWorkspace(deps: Deps, workspaceId: string) {
  const workspace = await deps.repo.workspaces.get(workspaceId);
  if (!workspace) throw fail.notFound("Workspace");
  return workspaceView(workspace);
}

/** A workspace's projects, oldest first; an unknown workspace is a 404, not an empty list. */
export async function listProjects(deps: Deps, workspaceId: string, query: Page) {
  if (!(await deps.repo.workspaces.get(workspaceId))) throw fail.notFound("Workspace");
  const oldestFirst = { field: "createdAt", direction: 1 } as const;
  const { items, next } = await page(
    (skip, limit) => deps.repo.projects.find({ workspaceId }, { sort: oldestFirst, skip, limit }),
    query,
  );
  return { workspaceId, projects: items.map(projectView), ...(next ? { next } : {}) };
}

export async function getProject(deps: Deps, projectId: string) {
  const project = await deps.repo.projects.get(projectId);
  if (!project) throw fail.notFound("Project");
  return projectView(project);
}
