import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { adminToken } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

/**
 * docs/operators.md: an operator who missed the ids the first start printed finds them again with
 * `workspace list|get` and `project list|get`, through the real CLI, on both deployments.
 */
const root = join(import.meta.dir, "..", "..");

async function cli(base: string, ...args: string[]) {
  const proc = Bun.spawn([process.execPath, join(root, "cli", "main.ts"), ...args], {
    env: { ...process.env, SAVEPOINT_URL: base, SAVEPOINT_ADMIN_TOKEN: adminToken },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code, stdout, stderr };
}

async function cliJson(base: string, ...args: string[]) {
  const r = await cli(base, ...args, "--json");
  if (r.code !== 0) throw new Error(`savepoint ${args.join(" ")} exited ${r.code}: ${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout);
}

forEachDeployment(
  "operator lookups",
  { distributed: { services: ["config", "gateway"] }, timeoutMs: 120_000 },
  ({ d }) => {
    let base: string;
    const studio = `Studio ${crypto.randomUUID().slice(0, 8)}`;
    let wsp: string;
    const projects: string[] = [];

    beforeAll(async () => {
      base = d.base;
      wsp = (await cliJson(base, "workspace", "create", "--name", studio, "--plan", "starter")).workspaceId;
      for (const game of ["Game A", "Game B", "Game C"])
        projects.push((await cliJson(base, "project", "create", "--workspace", wsp, "--name", game)).projectId);
      await cliJson(base, "sync-policy", "set", "--project", projects[1]!, "--minRemoteSyncIntervalSeconds", "120");
    }, 120_000);

    test("workspace list finds the workspace, all pages followed (--limit 1 pages one at a time)", async () => {
      const other = (await cliJson(base, "workspace", "create", "--name", `${studio} 2`)).workspaceId;
      for (const limit of ["1", "100"]) {
        const list = await cliJson(base, "workspace", "list", "--limit", limit);
        expect(list.next).toBeUndefined();
        const ids = list.workspaces.map((w: { workspaceId: string }) => w.workspaceId);
        expect(ids).toContain(wsp);
        expect(ids).toContain(other);
        expect(new Set(ids).size).toBe(ids.length);
        expect(list.workspaces.find((w: { workspaceId: string }) => w.workspaceId === wsp)).toMatchObject({
          name: studio,
          plan: "starter",
          billingStatus: "active",
        });
      }
      const human = await cli(base, "workspace", "list");
      expect(human.code).toBe(0);
      expect(human.stdout).toMatch(/^\s*workspaceId +name +plan/m);
      expect(human.stdout).toContain(wsp);
    });

    test("workspace get shows one workspace; an unknown one exits 1 with not_found", async () => {
      expect(await cliJson(base, "workspace", "get", "--workspace", wsp)).toMatchObject({
        workspaceId: wsp,
        name: studio,
        plan: "starter",
        billingStatus: "active",
      });
      const missing = await cli(base, "workspace", "get", "--workspace", "wsp_nosuchworkspace");
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/^not_found: Workspace was not found/);
    });

    test("project list shows the workspace's projects oldest first, across pages; project get shows policy and settings", async () => {
      for (const limit of ["2", "100"]) {
        const list = await cliJson(base, "project", "list", "--workspace", wsp, "--limit", limit);
        expect(list.workspaceId).toBe(wsp);
        expect(list.projects.map((p: { projectId: string }) => p.projectId)).toEqual(projects);
        expect(list.projects.map((p: { name: string }) => p.name)).toEqual(["Game A", "Game B", "Game C"]);
      }
      const project = await cliJson(base, "project", "get", "--project", projects[1]!);
      expect(project).toMatchObject({
        projectId: projects[1],
        workspaceId: wsp,
        name: "Game B",
        environments: ["stage", "prod"],
      });
      expect(project.syncPolicy.minRemoteSyncIntervalSeconds).toBe(120);
      expect(project.settings.rateLimits.sessionRequestsPerMinute).toBe(120);
      const missing = await cli(base, "project", "get", "--project", "prj_nosuchproject");
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/^not_found: Project was not found/);
      const noWorkspace = await cli(base, "project", "list", "--workspace", "wsp_nosuchworkspace");
      expect(noWorkspace.stderr).toMatch(/^not_found: Workspace was not found/);
    });

    test("a bad cursor or limit is a 400 in the envelope", async () => {
      for (const q of ["cursor=abc", "limit=0", "limit=201"]) {
        const res = await fetch(`${base}/admin/v1/workspaces?${q}`, {
          headers: { authorization: `Bearer ${adminToken}` },
        });
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
      }
    });
  },
);
