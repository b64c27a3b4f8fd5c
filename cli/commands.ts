import { z } from "zod";
import type { AdminOperation } from "../shared/contract/admin-client.ts";
import type { Route } from "../shared/contract/route.ts";
import { adminRoutes } from "../shared/contract/routes.ts";

/**
 * The CLI's commands: a name for each admin route. Flags, their types and which are required are read
 * from the route's own params, query and body schemas, so a field added to the contract is a flag at
 * once.
 */
export interface Flag {
  /** As typed after `--`: a path parameter loses its `Id` suffix (`--account`, not `--accountId`). */
  name: string;
  /** The schema's field name. */
  field: string;
  in: "path" | "query" | "body";
  /** `json`: an object, given as JSON text or `@file.json`. */
  kind: "string" | "integer" | "number" | "boolean" | "json";
  required: boolean;
  choices?: string[];
  /** What to type, for the help text: `prj_...`, `N`, `true|false`. */
  hint: string;
}

export interface Command {
  name: string;
  /** The admin route it calls, by its name in the route table (shared/contract/admin-client.ts). */
  op: AdminOperation;
  route: Route;
  flags: Flag[];
  /** Printed after a successful human-readable answer. */
  note?: string;
}

const restoredNote =
  "Written as a new version; a device still on an older one gets a conflict on its next sync and loads this.";

const editedNote =
  "Written as a new version with your reason in the audit log; a device on an older version gets a conflict with it on its next sync.";

/** Each command's admin route, by its name in the route table. */
const table: Record<string, AdminOperation> = {
  "workspace create": "createWorkspace",
  "workspace list": "listWorkspaces",
  "workspace get": "getWorkspace",
  "workspace update": "updateWorkspace",
  "project create": "createProject",
  "project list": "listProjects",
  "project get": "getProject",
  "settings set": "setSettings",
  "game-config publish": "publishGameConfig",
  "key list": "listRuntimeKeys",
  "key create": "createRuntimeKey",
  "key get": "getRuntimeKey",
  "key revoke": "revokeRuntimeKey",
  "sync-policy set": "setSyncPolicy",
  "account get": "getAccount",
  "account suspend": "suspendAccount",
  "account unsuspend": "unsuspendAccount",
  "account export": "exportAccount",
  "history list": "slotHistory",
  "history restore": "restoreSlot",
  "data history": "accountDataHistory",
  "data restore": "restoreAccountData",
  "session revoke": "revokeSession",
  "save history": "saveHistory",
  "save restore": "restoreSave",
  "save delete": "deleteSave",
  "auth-provider set": "setAuthProvider",
  "link delete": "unlinkProvider",
  "dead-letter list": "listDeadLetters",
  "dead-letter retry": "retryDeadLetter",
  "dead-letter discard": "discardDeadLetter",
  "sync-policy get": "getSyncPolicy",
  "sync-policy versions": "listSyncPolicyVersions",
  "sync-policy version": "getSyncPolicyVersion",
  "sync-policy rollback": "rollbackSyncPolicy",
  "settings get": "getSettings",
  "game-config get": "getGameConfig",
  "game-config versions": "listGameConfigVersions",
  "game-config version": "getGameConfigVersion",
  "game-config rollback": "rollbackGameConfig",
  "account find": "findAccounts",
  "account delete": "deleteAccount",
  "slot get": "getSlot",
  "history get": "getRestorePoint",
  "save get": "getSave",
  "audit list": "listAudit",
  "overview get": "getOverview",
  "slot edit": "editSlot",
  "data edit": "editAccountData",
  "data version": "getDataRestorePoint",
  "save version": "getSaveRestorePoint",
  "player find": "findPlayers",
  "audit get": "getAuditEntry",
  "operator create": "createOperator",
  "operator list": "listOperators",
  "operator get": "getOperator",
  "operator revoke": "revokeOperator",
};

/** What a command prints after its answer, where the answer alone does not say what happens next. */
const notes: Record<string, string> = {
  "game-config publish": "Clients get it on their next runtime-config request.",
  "key create": "The runtime key is shown once: store it now.",
  "account export": "Long values are clipped here: save the whole export with --json > export.json.",
  "history restore": restoredNote,
  "data restore": restoredNote,
  "session revoke": "That device is refused on its next request.",
  "save restore": "Written as a new version; a device still on an older one gets a conflict on its next sync.",
  "save delete": "The save and its restore points are erased; the id can be created again at version 1.",
  "link delete": "The identity can sign in again, to a new account.",
  "dead-letter retry": "The worker runs it again with a fresh set of deliveries.",
  "sync-policy rollback": "Made current as a new version; clients get it on their next runtime-config request.",
  "game-config rollback": "Published as a new version with that version's content.",
  "overview get": "Counts reach it within SAVEPOINT_TRAFFIC_FLUSH_MS (10 s) of each request.",
  "slot edit": editedNote,
  "data edit": editedNote,
  "operator create":
    "The operator token is shown once: hand it to the operator, who sets SAVEPOINT_OPERATOR_TOKEN or signs in to the console with it.",
  "operator revoke": "Its token is refused at once, by the API, the CLI and the console.",
};

interface Property {
  $ref?: string;
  type?: string;
  enum?: string[];
  pattern?: string;
}

function hintOf(p: Property, kind: Flag["kind"]): string {
  if (p.enum) return p.enum.join("|");
  if (kind === "integer" || kind === "number") return "N";
  if (kind === "boolean") return "true|false";
  if (kind === "json") return "JSON|@file.json";
  const prefix = /^\^([a-z]+_)/.exec(p.pattern ?? "")?.[1];
  return prefix ? `${prefix}...` : "TEXT";
}

function flagsOf(schema: z.ZodType | undefined, where: Flag["in"]): Flag[] {
  if (!schema) return [];
  type JsonSchema = { properties?: Record<string, Property>; required?: string[]; $defs?: Record<string, Property> };
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  // A field whose schema has its own name (`.meta({ id })`) is a reference to it.
  const resolve = (p: Property) => (p.$ref ? (json.$defs?.[p.$ref.replace("#/$defs/", "")] ?? p) : p);
  return Object.entries(json.properties ?? {}).map(([field, named]) => {
    const p = resolve(named);
    const kind =
      p.type === "integer" || p.type === "number" || p.type === "boolean"
        ? p.type
        : p.type === "object"
          ? "json"
          : "string";
    return {
      name: where === "path" ? field.replace(/Id$/, "") : field,
      field,
      in: where,
      kind,
      required: json.required?.includes(field) ?? false,
      choices: p.enum,
      hint: hintOf(p, kind),
    };
  });
}

export const commands: Command[] = Object.entries(table).map(([name, op]) => {
  const route: Route = adminRoutes[op];
  const flags = [...flagsOf(route.params, "path"), ...flagsOf(route.query, "query"), ...flagsOf(route.body, "body")];
  return { name, op, route, note: notes[name], flags };
});

export const commandNamed = (name: string) => commands.find((c) => c.name === name);

/** The commands of one group (`key`: key create, key list, ...). */
export const commandsOf = (group: string) => commands.filter((c) => c.name.startsWith(`${group} `));

/** Edits (insert, delete, replace one character) that turn `a` into `b`. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The command a mistyped name most likely meant: within 3 edits, and nearer than any other. */
export function nearestCommand(typed: string): string | undefined {
  const ranked = commands.map((c) => ({ name: c.name, d: distance(typed, c.name) })).sort((x, y) => x.d - y.d);
  const [best, second] = ranked;
  return best && best.d <= 3 && (!second || second.d > best.d) ? best.name : undefined;
}
