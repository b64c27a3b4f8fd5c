/**
 * What a start that made no key says instead: runtime keys are shown once, by whatever made them, so
 * a later `npm start` points at the CLI that makes another (docs/operators.md).
 */
export function keyHint(projectId: string | undefined, adminApiOn: boolean): string {
  const create = `npx savepoint key create --project ${projectId ?? "prj_..."} --env stage --label dev`;
  const find = projectId ? "" : " (workspace list and project list find the project)";
  const how = adminApiOn
    ? `${create}, with SAVEPOINT_ADMIN_TOKEN in your shell${find}`
    : `restart with SAVEPOINT_ADMIN_TOKEN set, then ${create}${find}`;
  return `No runtime key printed: a key is shown once, when it is made. For another: ${how}.`;
}
