import { STATUS_CODES } from "node:http";
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { apiGuide } from "../../shared/contract/docs/concepts.ts";
import { ErrorResponse } from "../../shared/contract/errors.ts";
import { type Route, takesIdempotencyKey } from "../../shared/contract/route.ts";
import { apiVersion } from "../../shared/contract/version.ts";
import { errorResponseDescription, errorStatusesOf, errorTable, statusTable } from "./openapi-errors.ts";

export { errorCasesOf } from "./openapi-errors.ts";

type Io = "input" | "output";
type JsonSchema = Record<string, unknown>;

const schemaRef = (name: string) => `#/components/schemas/${name}`;
/** Key of the wrapper that carries a direction's route-level schemas through one conversion. */
const routesKey = "__routes";

const openapiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, "{$1}");

const tagDescriptions: Record<string, string> = {
  runtime: "Health and the runtime configuration a game reads at start.",
  accounts: "Accounts and their account-wide data.",
  auth: "Identity-provider sessions.",
  transfer: "One-time codes that move an account to another device.",
  slots: "Named save slots, synced under optimistic concurrency.",
  billing: "Signed billing webhooks.",
  saves: "The save-based model.",
  admin: "Operator API; exists only when SAVEPOINT_ADMIN_TOKEN is set.",
  operations: "Readiness and metrics, for balancers and Prometheus; answered by the gateway itself.",
};

const requestTooLarge =
  "Request Header Fields Too Large: headers or URL over 16 KiB, refused by the HTTP server before any route runs, with no body.";

/** Server and SDK are both MIT (LICENSE); package.json is private only because the server is not an npm package. */
const license = { name: "MIT", identifier: "MIT" };

const securitySchemes = {
  runtimeKey: { type: "http", scheme: "bearer", description: "Runtime key `spk_<env>_...`" },
  accountSession: {
    type: "apiKey",
    in: "header",
    name: "X-Service-Account-Session",
    description:
      "Account session token, returned once per device; bound to the path's accountId, or to X-Service-Account-ID on paths without one.",
  },
  accountId: {
    type: "apiKey",
    in: "header",
    name: "X-Service-Account-ID",
    description: "The session's account, on paths that do not name it.",
  },
  adminToken: {
    type: "http",
    scheme: "bearer",
    description: "SAVEPOINT_ADMIN_TOKEN (the owner), or a named operator's token `spo_...`",
  },
};

/** Every schema with `.meta({ id })` that `root` reaches, by id. */
function namedSchemas(root: z.ZodType, io: Io) {
  const found = new Map<string, z.ZodType>();
  const collect = (schema: z.core.$ZodType | undefined) => {
    // A `.meta()` or `.describe()` clone points at its parent, which may be the one carrying the id.
    for (let s = schema; s; s = s._zod.parent) {
      const id = z.globalRegistry.get(s)?.id;
      if (id) found.set(id, s as z.ZodType);
    }
  };
  z.toJSONSchema(root, { io, unrepresentable: "any", override: ({ zodSchema }) => collect(zodSchema) });
  return found;
}

/**
 * Converts one direction's route schemas: named schemas become components that reference each other
 * by `$ref`, the rest stay inline. `name` picks a named schema's component name.
 */
function convert(schemas: readonly z.ZodType[], io: Io, name: (id: string) => string) {
  const wrapper = z.object(Object.fromEntries(schemas.map((s, i) => [String(i), s])));
  const named = namedSchemas(wrapper, io);
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of named) registry.add(schema, { id });
  registry.add(wrapper, { id: routesKey });
  // `unrepresentable: "any"` turns z.custom (free-form payloads) into `{}` merged with its meta.
  const out = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
    uri: (id) => schemaRef(name(id)),
  }).schemas;
  if (out.__shared) throw new Error(`a named schema was not collected: ${JSON.stringify(out.__shared)}`);

  const byId: Record<string, JsonSchema> = {};
  for (const id of named.keys()) {
    // `id` is our meta key, not a JSON Schema keyword; `$id`/`$schema` would make each component a
    // separate resource and break the document-relative `$ref`s.
    const { $schema, $id, id: _, ...schema } = out[id] as JsonSchema;
    byId[id] = schema;
  }
  const properties = (out[routesKey] as { properties: Record<string, JsonSchema> }).properties;
  const inline = new Map(schemas.map((s, i) => [s, properties[String(i)]]));
  return { byId, of: (s: z.ZodType) => inline.get(s)! };
}

/**
 * Component schemas for every named schema the routes reach, and each route schema's JSON Schema
 * (a `$ref` when it is named). A named schema used in both directions whose input and output forms
 * differ (defaults, unknown keys) gets its input form as `<id>Input`, and so does anything that
 * references such a schema, until the two sides agree.
 */
function routeSchemas(routes: readonly Route[]) {
  const inputs = [...new Set(routes.flatMap((r) => [r.params, r.query, ...(r.body ? [r.body] : [])]))];
  const outputsOf = (r: Route) => [
    r.ok[1],
    ...(r.conflict ? [r.conflict] : []),
    ...(r.answers ?? []).map((a) => a.schema),
  ];
  const outputs = [...new Set([ErrorResponse, ...routes.flatMap(outputsOf)])];
  let renamed = new Set<string>();
  for (;;) {
    const input = convert(inputs, "input", (id) => (renamed.has(id) ? `${id}Input` : id));
    const output = convert(outputs, "output", (id) => id);
    const differ = Object.keys(input.byId).filter(
      (id) => id in output.byId && !isDeepStrictEqual(input.byId[id], output.byId[id]),
    );
    if (differ.length === renamed.size && differ.every((id) => renamed.has(id))) {
      const components: Record<string, JsonSchema> = { ...output.byId };
      for (const [id, schema] of Object.entries(input.byId)) components[renamed.has(id) ? `${id}Input` : id] = schema;
      return {
        components: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
        input: input.of,
        output: output.of,
      };
    }
    renamed = new Set(differ);
  }
}

/** Path and query parameters, one per property of the route's params and query objects. */
function parameters(r: Route, input: (s: z.ZodType) => JsonSchema, components: Record<string, JsonSchema>) {
  const out: unknown[] = [];
  for (const [location, schema] of [
    ["path", r.params],
    ["query", r.query],
  ] as const) {
    let json = input(schema) as { $ref?: string; properties?: Record<string, unknown>; required?: string[] };
    if (json.$ref) json = components[json.$ref.slice(schemaRef("").length)] as typeof json;
    for (const [name, s] of Object.entries(json.properties ?? {})) {
      out.push({
        name,
        in: location,
        required: location === "path" || (json.required ?? []).includes(name),
        schema: s,
      });
    }
  }
  return out;
}

const idempotencyKeyParameter = (r: Route) => ({
  name: "Idempotency-Key",
  in: "header",
  required: false,
  schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7e]+$" },
  description:
    "Any unique string, such as a UUID, per logical write. Within 24 hours a retry with the same key, " +
    "credentials and body gets the first answer again, with `Idempotent-Replayed: true`; the same key with " +
    "another body is 409 `idempotency_key_reused`, and while the first request still runs 409 with " +
    "`details.reason` `in_progress` and Retry-After." +
    (r.auth === "session"
      ? ""
      : " On this route the key is scoped to the runtime key every player shares, so it is a secret: " +
        "at least 128 bits of randomness (a UUID v4, 32 hex digits), else 400."),
});

const jsonContent = (schema: unknown) => ({ "application/json": { schema } });

function security(r: Route) {
  if (r.auth === "none") return [];
  if (r.auth === "admin") return [{ adminToken: [] }];
  const session = r.path.includes(":accountId")
    ? { runtimeKey: [], accountSession: [] }
    : { runtimeKey: [], accountSession: [], accountId: [] };
  if (r.auth === "session") return [session];
  if (r.auth === "optionalSession") return [{ runtimeKey: [] }, session];
  return [{ runtimeKey: [] }];
}

/**
 * The OpenAPI 3.1 document, generated from the same zod objects the gateway validates with. Schemas
 * with `.meta({ id })` are components under that name.
 */
export function openApiDocument(routes: readonly Route[]) {
  const { components, input, output } = routeSchemas(routes);
  const error = output(ErrorResponse);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const okContent = r.contentType ? { [r.contentType]: { schema: output(r.ok[1]) } } : jsonContent(output(r.ok[1]));
    const responses: Record<string, unknown> = {
      [r.ok[0]]: { description: STATUS_CODES[r.ok[0]], content: okContent },
    };
    for (const a of r.answers ?? [])
      responses[a.status] = { description: a.description, content: jsonContent(output(a.schema)) };
    const idempotent = takesIdempotencyKey(r);
    const statuses = errorStatusesOf(r);
    for (const status of statuses) {
      const schema = status === 409 && r.conflict ? { oneOf: [output(r.conflict), error] } : error;
      responses[status] = { description: errorResponseDescription(r, status), content: jsonContent(schema) };
    }
    // Bun's HTTP server refuses oversized headers itself on every route; listed where nothing else is a 4xx.
    if (!statuses.some((s) => s >= 400 && s < 500)) responses[431] = { description: requestTooLarge };
    if (!r.subject && !r.gatewayOnly)
      responses[501] = { description: "Not implemented yet", content: jsonContent(error) };
    paths[openapiPath(r.path)] ??= {};
    paths[openapiPath(r.path)]![r.method.toLowerCase()] = {
      operationId: r.operationId,
      summary: r.number ? `${r.number}. ${r.summary}` : r.summary,
      description: [r.description ?? "", r.role ? `Least operator role: \`${r.role}\`.` : "", errorTable(r)]
        .filter(Boolean)
        .join("\n\n"),
      tags: [r.tag],
      security: security(r),
      parameters: [...parameters(r, input, components), ...(idempotent ? [idempotencyKeyParameter(r)] : [])],
      ...(r.body ? { requestBody: { required: !r.bodyOptional, content: jsonContent(input(r.body)) } } : {}),
      responses,
    };
  }
  const tags = [...new Set(routes.map((r) => r.tag))].map((name) => ({
    name,
    ...(tagDescriptions[name] ? { description: tagDescriptions[name] } : {}),
  }));
  return {
    openapi: "3.1.0",
    info: { title: "Savepoint API", version: apiVersion, description: apiGuide(statusTable()), license },
    // Relative: the document is served by the gateway it describes, wherever that is mounted.
    servers: [{ url: "/" }],
    tags,
    paths,
    components: { schemas: components, securitySchemes },
  };
}
