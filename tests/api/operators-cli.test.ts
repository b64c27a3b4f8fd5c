import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { admin, newTenant } from "../helpers/api.ts";
import { adminToken, startEmbedded } from "../helpers/deployments.ts";

/** docs/operators.md: the CLI sends the operator's own token, so the role is checked and the audit log names them. */
const root = join(import.meta.dir, "..", "..");
let d: Awaited<ReturnType<typeof startEmbedded>>;
beforeAll(async () => {
  d = await startEmbedded();
});
afterAll(() => d?.stop());

async function cli(env: Record<string, string>, ...args: string[]) {
  const proc = Bun.spawn([process.execPath, join(root, "cli", "main.ts"), ...args], {
    cwd: root,
    env: { ...process.env, SAVEPOINT_URL: d.base, SAVEPOINT_ADMIN_TOKEN: "", SAVEPOINT_OPERATOR_TOKEN: "", ...env },
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

test("operator create shows the token once; SAVEPOINT_OPERATOR_TOKEN: a viewer is refused a key revoke; an operator revoke is in the log", async () => {
  const t = await newTenant(d);
  const made = await cli(
    { SAVEPOINT_ADMIN_TOKEN: adminToken },
    "operator",
    "create",
    "--name",
    "Val Viewer",
    "--role",
    "viewer",
    "--json",
  );
  expect(made.code).toBe(0);
  const { operatorId, operatorToken } = JSON.parse(made.stdout);
  const asViewer = { SAVEPOINT_OPERATOR_TOKEN: operatorToken };

  const refused = await cli(asViewer, "key", "revoke", "--key", t.keyId);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("forbidden");
  expect((await cli(asViewer, "key", "get", "--key", t.keyId)).code).toBe(0);
  // The operator token wins over the admin token when both are set.
  expect((await cli({ ...asViewer, SAVEPOINT_ADMIN_TOKEN: adminToken }, "key", "revoke", "--key", t.keyId)).code).toBe(
    1,
  );
  expect((await admin(d, "GET", `/admin/v1/runtime-keys/${t.keyId}`)).body.revokedAt).toBeUndefined();

  const listed = await cli({ SAVEPOINT_ADMIN_TOKEN: adminToken }, "operator", "list", "--json");
  expect(JSON.parse(listed.stdout).operators.map((o: { operatorId: string }) => o.operatorId)).toContain(operatorId);
  expect(listed.stdout).not.toContain(operatorToken);
  expect((await cli({ SAVEPOINT_ADMIN_TOKEN: adminToken }, "operator", "revoke", "--operator", operatorId)).code).toBe(
    0,
  );
  const entry = (await admin(d, "GET", `/admin/v1/audit?target=${operatorId}&action=adminRevokeOperator`)).body
    .entries[0];
  expect(entry.actor).toMatch(/^cli:/);
  expect(entry.after).toMatchObject({ operatorId, name: "Val Viewer", role: "viewer", revokedAt: expect.any(String) });
  expect((await cli(asViewer, "key", "get", "--key", t.keyId)).code).toBe(1);
}, 60_000);
