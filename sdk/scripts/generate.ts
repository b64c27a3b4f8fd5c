import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openApiDocument } from "../../services/gateway/openapi.ts";
import { defaultSyncPolicy } from "../../shared/contract/common.ts";
import { ErrorCode } from "../../shared/contract/errors.ts";
import type { Route } from "../../shared/contract/route.ts";
import { allRoutes } from "../../shared/contract/routes.ts";
import { schemaFiles } from "./schema-files.ts";
import { header, key, type OpenApi, type Operation, tsType } from "./ts-type.ts";

/**
 * Writes `sdk/src/generated/*.ts` from the server's OpenAPI document (the same zod objects the gateway
 * validates with), so the SDK ships plain types and no zod. A test regenerates and compares.
 */
/** The runtime routes a game calls: everything but the operator API. */
export const clientRoutes = () => allRoutes.filter((r) => r.auth !== "admin");

export function generate(routes: readonly Route[] = clientRoutes()): Record<string, string> {
  const doc = openApiDocument(routes) as unknown as OpenApi;
  const schemas = Object.entries(doc.components.schemas);
  const errorsTs = `${header}
/** Error codes the server names today; a newer server may send others (\`SavepointError.code\` stays a string). */
export const knownErrorCodes = ${JSON.stringify(ErrorCode.options, null, 2)} as const;
export type KnownErrorCode = (typeof knownErrorCodes)[number];
`;
  const defaultsTs = `${header}
/** The server's default sync policy: what the SDK follows until route 2 has answered once. */
export const defaultSyncPolicy = ${JSON.stringify(defaultSyncPolicy, null, 2)} as const;
`;

  const table: string[] = [];
  const shapes: string[] = [];
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z]+)/g, "{$1}");
    const op = doc.paths[path]![r.method.toLowerCase()]!;
    const idempotent = op.parameters.some((p) => p.name === "Idempotency-Key");
    table.push(
      `  ${op.operationId}: { method: "${r.method}", path: "${path}", auth: "${r.auth}", ok: ${r.ok[0]}, idempotent: ${idempotent} },`,
    );
    const params = op.parameters.filter((p) => p.in === "path");
    const query = op.parameters.filter((p) => p.in === "query");
    const field = (p: Operation["parameters"][number]) => `${key(p.name)}${p.required ? "" : "?"}: ${tsType(p.schema)}`;
    const fields = (ps: Operation["parameters"]) =>
      ps.length ? `{ ${ps.map(field).join("; ")} }` : "Record<string, never>";
    const body = op.requestBody
      ? `${tsType(op.requestBody.content["application/json"]!.schema)}${op.requestBody.required ? "" : " | undefined"}`
      : "undefined";
    const ok = tsType(op.responses[r.ok[0]]!.content["application/json"]!.schema);
    const c409 = op.responses[409]?.content["application/json"]?.schema;
    const conflict = c409?.oneOf ? tsType(c409.oneOf[0]) : "never";
    const shape = { params: fields(params), query: fields(query), body, ok, conflict };
    shapes.push(
      `  ${op.operationId}: {\n${Object.entries(shape)
        .map(([k, v]) => `    ${k}: ${v};`)
        .join("\n")}\n  };`,
    );
  }
  const routesTs = `${header}
import type * as S from "./schemas.ts";

/** Every route a game calls, from the server's route table: method, path, authentication, success status. */
export const routes = {
${table.join("\n")}
} as const;

export type OperationId = keyof typeof routes;

/** Request and answer types of each route; \`conflict\` is the 409 body with \`status: "conflict"\`. */
export interface RouteTypes {
${shapes.join("\n").replace(/\b(?<![."])([A-Z][A-Za-z]+)(?=[;\s|\][&)]|$)/g, (m) => (schemas.some(([n]) => n === m) ? `S.${m}` : m))}
}
`;
  return { ...schemaFiles(doc), "routes.ts": routesTs, "error-codes.ts": errorsTs, "defaults.ts": defaultsTs };
}

if (import.meta.main) {
  const dir = join(import.meta.dir, "..", "src", "generated");
  mkdirSync(join(dir, "schemas"), { recursive: true });
  for (const [name, text] of Object.entries(generate())) writeFileSync(join(dir, name), text);
  console.log(`sdk: wrote ${Object.keys(generate()).join(", ")} to ${dir}`);
}
