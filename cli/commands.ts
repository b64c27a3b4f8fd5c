import { z } from "zod";
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
  route: Route;
  flags: Flag[];
  /** Printed after a successful human-readable answer. */
  note?: string;
}

const restoredNote =
  "Written as a new version; a device still on an older one gets a conflict on its next sync and loads this.";

const editedNote =
  "Written as a new version with your reason in the audit log; a device on an older version gets a conflict with it on its next sync.";

const table: Record<string, { route: Route; note?: string }> = {
  "workspace create": { route: adminRoutes.createWorkspace },
  "workspace list": { route: adminRoutes.listWorkspaces },
  "workspace get": { route: adminRoutes.getWorkspace },
  "workspace update": { route: adminRoutes.updateWorkspace },
  "project create": { route: adminRoutes.createProject },
  "project list": { route: adminRoutes.listProjects },
  "project get": { route: adminRoutes.getProject },
  "settings set": { route: adminRoutes.setSettings },
  "game-config publish": {
    route: adminRoutes.publishGameConfig,
    note: "Clients get it on their next runtime-config request.",
  },
  "key list": { route: adminRoutes.listRuntimeKeys },
  "key create": { route: adminRoutes.createRuntimeKey, note: "The runtime key is shown once: store it now." },
  "key get": { route: adminRoutes.getRuntimeKey },
  "key revoke": { route: adminRoutes.revokeRuntimeKey },
  "sync-policy set": { route: adminRoutes.setSyncPolicy },
  "account get": { route: adminRoutes.getAccount },
  "account suspend": { route: adminRoutes.suspendAccount },
  "account unsuspend": { route: adminRoutes.unsuspendAccount },
  "account export": {
    route: adminRoutes.exportAccount,
    note: "Long values are clipped here: save the whole export with --json > export.json.",
  },
  "history list": { route: adminRoutes.slotHistory },
  "history restore": { route: adminRoutes.restoreSlot, note: restoredNote },
  "data history": { route: adminRoutes.accountDataHistory },
  "data restore": { route: adminRoutes.restoreAccountData, note: restoredNote },
  "session revoke": { route: adminRoutes.revokeSession, note: "That device is refused on its next request." },
  "save history": { route: adminRoutes.saveHistory },
  "save restore": {
    route: adminRoutes.restoreSave,
    note: "Written as a new version; a device still on an older one gets a conflict on its next sync.",
  },
  "save delete": {
    route: adminRoutes.deleteSave,
    note: "The save and its restore points are erased; the id can be created again at version 1.",
  },
  "auth-provider set": { route: adminRoutes.setAuthProvider },
  "link delete": { route: adminRoutes.unlinkProvider, note: "The identity can sign in again, to a new account." },
  "dead-letter list": { route: adminRoutes.listDeadLetters },
  "dead-letter retry": {
    route: adminRoutes.retryDeadLetter,
    note: "The worker runs it again with a fresh set of deliveries.",
  },
  "dead-letter discard": { route: adminRoutes.discardDeadLetter },
  "sync-policy get": { route: adminRoutes.getSyncPolicy },
  "sync-policy versions": { route: adminRoutes.listSyncPolicyVersions },
  "sync-policy version": { route: adminRoutes.getSyncPolicyVersion },
  "sync-policy rollback": {
    route: adminRoutes.rollbackSyncPolicy,
    note: "Made current as a new version; clients get it on their next runtime-config request.",
  },
  "settings get": { route: adminRoutes.getSettings },
  "game-config get": { route: adminRoutes.getGameConfig },
  "game-config versions": { route: adminRoutes.listGameConfigVersions },
  "game-config version": { route: adminRoutes.getGameConfigVersion },
  "game-config rollback": {
    route: adminRoutes.rollbackGameConfig,
    note: "Published as a new version with that version's content.",
  },
  "account find": { route: adminRoutes.findAccounts },
  "account delete": { route: adminRoutes.deleteAccount },
  "slot get": { route: adminRoutes.getSlot },
  "history get": { route: adminRoutes.getRestorePoint },
  "save get": { route: adminRoutes.getSave },
  "audit list": { route: adminRoutes.listAudit },
  "overview get": {
    route: adminRoutes.getOverview,
    note: "Counts reach it within SAVEPOINT_TRAFFIC_FLUSH_MS (10 s) of each request.",
  },
  "slot edit": { route: adminRoutes.editSlot, note: editedNote },
  "data edit": { route: adminRoutes.editAccountData, note: editedNote },
  "data version": { route: adminRoutes.getDataRestorePoint },
  "save version": { route: adminRoutes.getSaveRestorePoint },
  "player find": { route: adminRoutes.findPlayers },
  "audit get": { route: adminRoutes.getAuditEntry },
  "operator create": {
    route: adminRoutes.createOperator,
    note: "The operator token is shown once: hand it to the operator, who sets SAVEPOINT_OPERATOR_TOKEN or signs in to the console with it.",
  },
  "operator list": { route: adminRoutes.listOperators },
  "operator get": { route: adminRoutes.getOperator },
  "operator revoke": {
    route: adminRoutes.revokeOperator,
    note: "Its token is refused at once, by the API, the CLI and the console.",
  },
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

export const commands: Command[] = Object.entries(table).map(([name, { route, note }]) => ({
  name,
  route,
  note,
  flags: [...flagsOf(route.params, "path"), ...flagsOf(route.query, "query"), ...flagsOf(route.body, "body")],
}));

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
