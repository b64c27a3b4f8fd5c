/**
 * Writes `docs/routes.md` from the route table: every route's method, path, credentials, guarantees and
 * errors. `bun scripts/docs-routes.ts` after a route changes; `tests/unit/docs.test.ts` fails until then.
 */
import { writeFileSync } from "node:fs";
import { errorTable } from "../services/gateway/openapi-errors.ts";
import type { Auth, Route } from "../shared/contract/route.ts";
import { adminRoutes, contractRoutes } from "../shared/contract/routes.ts";

export const routesDocPath = `${import.meta.dir}/../docs/routes.md`;

const leastRole = (r: { role?: string }) => (r.role ? ` (least role: \`${r.role}\`)` : "");
const credentials: Record<Auth, string> = {
  none: "none",
  runtimeKey: "runtime key",
  session: "runtime key and account session",
  optionalSession: "runtime key; account session optional",
  admin: "admin or operator token",
};

/** The path as a client writes it: `{accountId}` rather than the router's `:accountId`. */
export const wirePath = (path: string) => path.replace(/:([A-Za-z]+)/g, "{$1}");

/** A route's heading: stable, so other documents can link `docs/routes.md#<operationid>`. */
export const routeHeading = (r: Route) => `### ${r.operationId}`;

function section(r: Route): string {
  const number = r.number === undefined ? "" : ` (route ${r.number})`;
  const lines = [
    routeHeading(r),
    "",
    `\`${r.method} ${wirePath(r.path)}\`${number}: ${r.summary}. Credentials: ${credentials[r.auth]}${leastRole(r)}. Success: ${r.ok[0]}.`,
  ];
  if (r.description) lines.push("", r.description.trim());
  lines.push("", errorTable(r));
  return lines.join("\n");
}

export function routesMarkdown(): string {
  const runtime = Object.values(contractRoutes);
  const admin = Object.values(adminRoutes);
  return [
    "# Routes",
    "",
    "Generated from the route table (`shared/contract/routes.ts`) by `bun scripts/docs-routes.ts`: do not edit by hand.",
    "The rules behind these answers are in [api-rules.md](api-rules.md); every error code is in [error-codes.md](error-codes.md).",
    "Errors that every route of a kind shares (credentials, limits, availability) are listed under each route.",
    "",
    "## Runtime API",
    "",
    runtime.map(section).join("\n\n"),
    "",
    "## Admin API",
    "",
    admin.map(section).join("\n\n"),
    "",
  ].join("\n");
}

if (import.meta.main) writeFileSync(routesDocPath, routesMarkdown());
