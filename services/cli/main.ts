import { parseArgs } from "node:util";
import type { Route } from "../../shared/contract/route.ts";
import { adminRoutes } from "../../shared/contract/routes.ts";

/**
 * `bun run cli <command> [--flag value ...]`: the operator API from a terminal. Talks to
 * SAVEPOINT_URL (default http://localhost:8080) with SAVEPOINT_ADMIN_TOKEN, prints the JSON answer,
 * and exits non-zero on an error answer.
 */
interface Command {
  route: Route;
  /** Flag name for each path parameter. */
  params?: Record<string, string>;
  /** Flags copied into the body; with `json`, values are parsed as JSON (numbers, booleans). */
  body?: string[];
  json?: boolean;
  help: string;
}

const policyFields = ["minRemoteSyncIntervalSeconds", "forceSyncCooldownSeconds", "syncOnAppBackground", "syncOnAppForeground", "syncOnReconnect", "maxQueuedLocalSnapshots"];

const commands: Record<string, Command> = {
  "workspace create": { route: adminRoutes.createWorkspace, body: ["name", "plan"], help: "--name N [--plan free|starter|growth|pro|self_hosted]" },
  "project create": { route: adminRoutes.createProject, params: { workspaceId: "workspace" }, body: ["name"], help: "--workspace wsp_... --name N" },
  "key create": { route: adminRoutes.createRuntimeKey, params: { projectId: "project", env: "env" }, body: ["label"], help: "--project prj_... --env stage|prod [--label L]" },
  "key revoke": { route: adminRoutes.revokeRuntimeKey, params: { keyId: "key" }, help: "--key key_..." },
  "sync-policy set": { route: adminRoutes.setSyncPolicy, params: { projectId: "project" }, body: policyFields, json: true, help: `--project prj_... [--${policyFields.join(" N] [--")} N]` },
  "account get": { route: adminRoutes.getAccount, params: { accountId: "account" }, help: "--account acc_..." },
  "account suspend": { route: adminRoutes.suspendAccount, params: { accountId: "account" }, help: "--account acc_..." },
  "account unsuspend": { route: adminRoutes.unsuspendAccount, params: { accountId: "account" }, help: "--account acc_..." },
};

function usage(): never {
  console.error("usage: bun run cli <command> [flags]\n");
  for (const [name, c] of Object.entries(commands)) console.error(`  ${name.padEnd(18)} ${c.help}`);
  console.error("\nenvironment: SAVEPOINT_URL (default http://localhost:8080), SAVEPOINT_ADMIN_TOKEN (required)");
  process.exit(2);
}

const [noun, verb, ...rest] = Bun.argv.slice(2);
const command = commands[`${noun} ${verb}`];
if (!command) usage();
const flags = [...Object.values(command.params ?? {}), ...(command.body ?? [])];
const { values } = parseArgs({ args: rest, options: Object.fromEntries(flags.map((f) => [f, { type: "string" as const }])), strict: true });

let path = command.route.path;
for (const [param, flag] of Object.entries(command.params ?? {})) {
  const value = values[flag];
  if (!value) {
    console.error(`missing --${flag}`);
    usage();
  }
  path = path.replace(`:${param}`, encodeURIComponent(value));
}
const body = Object.fromEntries(
  (command.body ?? []).filter((f) => values[f] !== undefined).map((f) => [f, command.json ? JSON.parse(values[f]!) : values[f]]),
);

const token = process.env.SAVEPOINT_ADMIN_TOKEN;
if (!token) {
  console.error("SAVEPOINT_ADMIN_TOKEN is not set");
  process.exit(2);
}
const base = process.env.SAVEPOINT_URL ?? "http://localhost:8080";
const res = await fetch(`${base}${path}`, {
  method: command.route.method,
  headers: { authorization: `Bearer ${token}`, ...(command.body ? { "content-type": "application/json" } : {}) },
  body: command.body ? JSON.stringify(body) : undefined,
});
console.log(JSON.stringify(await res.json(), null, 2));
process.exit(res.ok ? 0 : 1);
