import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Elysia } from "elysia";
import type { Route } from "../../shared/contract/route.ts";
import { jsonHeaders } from "./errors.ts";
import { openApiDocument } from "./openapi.ts";
import { requestIdOf } from "./request-id.ts";

/** Where the API reference's script is served from (the installed `@scalar/api-reference`). */
export const docsScriptPath = "/docs/assets/standalone.js";

// The package exports no path to its browser build: it sits next to the main entry.
const bundlePath = join(
  dirname(fileURLToPath(import.meta.resolve("@scalar/api-reference"))),
  "browser",
  "standalone.js",
);

let bundle: { bytes: Uint8Array<ArrayBuffer>; hash: string; gzipped?: Uint8Array<ArrayBuffer> } | undefined;
/** The 4 MB bundle, read once per process; gzipped on first demand (~100 ms, ~1.3 MB). */
function scalarBundle() {
  if (!bundle) {
    const bytes = new Uint8Array(readFileSync(bundlePath));
    bundle = { bytes, hash: new Bun.CryptoHasher("sha256").update(bytes).digest("hex").slice(0, 16) };
  }
  return bundle;
}

/**
 * Scalar's options. Everything that would reach the internet is off: default fonts (fonts.scalar.com),
 * telemetry, and the cloud features that upload the document (AI agent, MCP, the developer toolbar's
 * share and deploy). Every tag starts open, so the whole route list shows at once.
 */
const scalarConfig = {
  url: "/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
  defaultOpenAllTags: true,
  // Error tables: a status is never broken ("40 / 9"), and a code only where the column cannot hold it.
  customCss:
    ".markdown td, .markdown th { word-break: normal; } .markdown td:first-child, .markdown th:first-child { white-space: nowrap; } " +
    ".markdown td:nth-child(2) { min-width: 11em; } .markdown td code { overflow-wrap: anywhere; }",
};

const startScript = `Scalar.createApiReference("#app", ${JSON.stringify(scalarConfig)});`;

/**
 * What the reference page may load: its script from here and the one inline line that starts it (by
 * hash), the styles Scalar injects, and requests to this origin only. Nothing from elsewhere runs,
 * and no other site may frame the page.
 */
const pagePolicy = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${new Bun.CryptoHasher("sha256").update(startScript).digest("base64")}'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");
/** The document and the script are data to a browser: nothing in them may run as a page. */
const dataPolicy = "default-src 'none'; frame-ancestors 'none'";

// The empty icon keeps the browser from asking for /favicon.ico, which would be a 404.
const page = (scriptUrl: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Savepoint API reference</title>
</head>
<body>
<div id="app"></div>
<script src="${scriptUrl}"></script>
<script>${startScript}</script>
</body>
</html>
`;

/**
 * GET /openapi.json, the API reference at GET /docs and its script. The document is generated once,
 * here, from `routes`; the script comes from node_modules, so the reference renders with no network.
 */
export function docsRoutes(routes: readonly Route[]) {
  const document = JSON.stringify(openApiDocument(routes));
  const script = scalarBundle();
  // The HTML names the script by content hash, so the script itself can be cached for good.
  const html = page(`${docsScriptPath}?v=${script.hash}`);

  return new Elysia()
    .get("/openapi.json", ({ request }) => {
      const headers = jsonHeaders(requestIdOf(request.headers), {
        "cache-control": "no-cache",
        "content-security-policy": dataPolicy,
      });
      return new Response(document, { headers });
    })
    .get("/docs", ({ request }) => {
      const headers = {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-cache",
        "x-request-id": requestIdOf(request.headers),
        "content-security-policy": pagePolicy,
        "x-content-type-options": "nosniff",
      };
      return new Response(html, { headers });
    })
    .get(docsScriptPath, ({ request }) => {
      const headers: Record<string, string> = {
        "content-type": "text/javascript; charset=utf-8",
        "cache-control": "public, max-age=31536000, immutable",
        vary: "accept-encoding",
        "x-request-id": requestIdOf(request.headers),
        "x-content-type-options": "nosniff",
      };
      if (!/\bgzip\b/.test(request.headers.get("accept-encoding") ?? ""))
        return new Response(script.bytes, { headers });
      script.gzipped ??= Bun.gzipSync(script.bytes);
      return new Response(script.gzipped, { headers: { ...headers, "content-encoding": "gzip" } });
    });
}
