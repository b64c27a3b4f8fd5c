import { type SyncPolicy, SyncPolicy as SyncPolicySchema } from "../../shared/contract/common.ts";
import { fail } from "../../shared/contract/errors.ts";
import { events } from "../../shared/contract/internal.ts";
import { dropEverywhere } from "../../shared/revocation/cache-drops.ts";
import { updateInRounds } from "../../shared/store/versioned.ts";
import type { Deps } from "./deps.ts";
import type { ProjectDoc, SyncPolicyVersionDoc } from "./repo.ts";
import { maxRounds } from "./rounds.ts";

/**
 * A project's sync policy is versioned like game config (docs/operators.md#set-up-a-game-and-ship-a-config): every change is the
 * next version, kept with its author and note, written with the project in one conditional update on
 * the version read, so concurrent changes get consecutive versions, none lost, none twice.
 */

type Change = { author: string; note?: string; rolledBackFrom?: number };

const idOf = (projectId: string, version: number) => `${projectId}#${version}`;

/** A project whose policy has not changed since versions were kept: its policy as it is is version 1. */
const firstVersion = (p: ProjectDoc): SyncPolicyVersionDoc => ({
  _id: idOf(p._id, 1),
  projectId: p._id,
  version: 1,
  policy: p.syncPolicy,
  author: "unknown",
  note: "The policy as it was when versions began to be kept.",
  createdAt: p.createdAt,
});

const view = (d: SyncPolicyVersionDoc) => ({
  version: d.version,
  author: d.author,
  ...(d.note ? { note: d.note } : {}),
  createdAt: d.createdAt,
  ...(d.rolledBackFrom ? { rolledBackFrom: d.rolledBackFrom } : {}),
  policy: JSON.parse(d.policy) as SyncPolicy,
});

async function projectOf(deps: Deps, projectId: string): Promise<ProjectDoc> {
  const project = await deps.repo.projects.get(projectId);
  if (!project) throw fail.notFound("Project");
  return project;
}

/** Writes the next version; a project without versions gets its version 1 in the same write. */
async function writeVersion(
  deps: Deps,
  projectId: string,
  change: Change,
  next: (current: SyncPolicy) => SyncPolicy,
): Promise<SyncPolicyVersionDoc> {
  let written: SyncPolicyVersionDoc | undefined;
  await updateInRounds(
    deps.repo.projects,
    () => deps.repo.projects.get(projectId),
    (project) => {
      if (!project) throw fail.notFound("Project");
      const version = (project.syncPolicyVersion ?? 1) + 1;
      const policy = JSON.stringify(next(JSON.parse(project.syncPolicy)));
      const createdAt = deps.now().toISOString();
      written = { _id: idOf(projectId, version), projectId, version, policy, createdAt, ...change };
      const first =
        project.syncPolicyVersion === undefined
          ? [{ insert: firstVersion(project), into: deps.repo.syncPolicyVersions }]
          : [];
      return {
        where: {
          syncPolicyVersion: project.syncPolicyVersion ?? null,
          syncPolicy: project.syncPolicy,
        } as Partial<ProjectDoc>,
        changes: { syncPolicy: policy, syncPolicyVersion: version, updatedAt: createdAt },
        followers: [...first, { insert: written, into: deps.repo.syncPolicyVersions }],
      };
    },
    { rounds: maxRounds },
  );
  // Gateways drop their cached tenants before the answer: route 2 serves the new version at once.
  await dropEverywhere(deps.bus, events.tenantsChanged, { projectId });
  return written!;
}

/** Changes some fields of a project's sync policy, as a new version. */
export async function setSyncPolicy(
  deps: Deps,
  projectId: string,
  body: Partial<SyncPolicy> & { note?: string },
  author: string,
): Promise<SyncPolicy> {
  const { note, ...patch } = body;
  const written = await writeVersion(deps, projectId, { author, ...(note ? { note } : {}) }, (current) =>
    SyncPolicySchema.parse({ ...current, ...patch }),
  );
  return JSON.parse(written.policy);
}

async function versionDoc(deps: Deps, projectId: string, version: number): Promise<SyncPolicyVersionDoc> {
  const project = await projectOf(deps, projectId);
  if (project.syncPolicyVersion === undefined && version === 1) return firstVersion(project);
  const kept = await deps.repo.syncPolicyVersions.get(idOf(projectId, version));
  if (!kept) throw fail.notFound(`Sync policy version ${version}`);
  return kept;
}

export async function listSyncPolicyVersions(deps: Deps, projectId: string) {
  const project = await projectOf(deps, projectId);
  const kept =
    project.syncPolicyVersion === undefined
      ? [firstVersion(project)]
      : await deps.repo.syncPolicyVersions.find({ projectId }, { sort: { field: "version", direction: -1 } });
  return { projectId, currentVersion: project.syncPolicyVersion ?? 1, versions: kept.map(view) };
}

export const getSyncPolicyVersion = async (deps: Deps, projectId: string, version: number) =>
  view(await versionDoc(deps, projectId, version));

/** A rollback makes an earlier version's policy current as the next version: history is never rewritten. */
export async function rollbackSyncPolicy(
  deps: Deps,
  projectId: string,
  body: { version: number; note?: string },
  author: string,
) {
  const old = await versionDoc(deps, projectId, body.version);
  const change = { author, rolledBackFrom: body.version, ...(body.note ? { note: body.note } : {}) };
  return view(await writeVersion(deps, projectId, change, () => JSON.parse(old.policy)));
}
