import { z } from "zod";
import { ErrorResponse } from "../../shared/contract/errors.ts";
import type { Route } from "../../shared/contract/route.ts";

const toSchema = (schema: z.ZodType, io: "input" | "output") =>
  z.toJSONSchema(schema, { io, target: "openapi-3.0", unrepresentable: "any", reused: "inline" }) as Record<string, unknown>;

const openapiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, "{$1}");

function parameters(r: Route) {
  const out: unknown[] = [];
  for (const [location, schema] of [["path", r.params], ["query", r.query]] as const) {
    const json = toSchema(schema, "input") as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, s] of Object.entries(json.properties ?? {})) {
      out.push({ name, in: location, required: location === "path" || (json.required ?? []).includes(name), schema: s });
    }
  }
  if (r.auth === "session") out.push({ name: "X-Service-Account-Session", in: "header", required: true, schema: { type: "string" } });
  return out;
}

/** The OpenAPI 3.0 document, generated from the same zod objects the gateway validates with. */
export function openApiPaths(routes: readonly Route[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const responses: Record<string, unknown> = {
      [r.ok[0]]: { description: "Success", content: { "application/json": { schema: toSchema(r.ok[1], "output") } } },
    };
    for (const status of r.errors) {
      const schema = status === 409 && r.conflict ? { oneOf: [toSchema(r.conflict, "output"), toSchema(ErrorResponse, "output")] } : toSchema(ErrorResponse, "output");
      responses[status] = { description: `Error ${status}`, content: { "application/json": { schema } } };
    }
    if (!r.subject) responses[501] = { description: "Not implemented yet", content: { "application/json": { schema: toSchema(ErrorResponse, "output") } } };
    const security = r.auth === "none" ? [] : r.auth === "admin" ? [{ adminToken: [] }] : [{ runtimeKey: [] }];
    (paths[openapiPath(r.path)] ??= {})[r.method.toLowerCase()] = {
      operationId: r.operationId,
      summary: r.number ? `${r.number}. ${r.summary}` : r.summary,
      tags: [r.tag],
      security,
      parameters: parameters(r),
      ...(r.body ? { requestBody: { required: !r.bodyOptional, content: { "application/json": { schema: toSchema(r.body, "input") } } } } : {}),
      responses,
    };
  }
  return paths;
}

export const securitySchemes = {
  runtimeKey: { type: "http", scheme: "bearer", description: "Runtime key `spk_<env>_...`" },
  adminToken: { type: "http", scheme: "bearer", description: "SAVEPOINT_ADMIN_TOKEN" },
};
