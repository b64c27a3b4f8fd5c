import { Environment } from "../../../shared/contract/common.ts";
import { ApiError, act, type Ctx, field, ok, type Pages, typed } from "./context.ts";
import { diffTable } from "./diff.ts";
import { form, href, html, when } from "./html.ts";
import { comparison, rollbackButton } from "./versions.ts";

const envParams = (ctx: Ctx) => ({ projectId: ctx.params.projectId!, env: typed(Environment, ctx.params.env) });
const pagePath = (ctx: Ctx) => href`/console/projects/${ctx.params.projectId}/game-config/${ctx.params.env}`;

async function gameConfig(ctx: Ctx, preview?: { text: string; data?: unknown; error?: string }) {
  const params = envParams(ctx);
  const live = ok(await ctx.api.call("getGameConfig", { params }));
  const { versions } = ok(await ctx.api.call("listGameConfigVersions", { params }));
  const { compare } = await comparison(
    ctx,
    async (version) => ok(await ctx.api.call("getGameConfigVersion", { params: { ...params, version } })).data,
  );
  const publishForm =
    preview?.data !== undefined
      ? html`<h2>Review before publishing</h2><p>Live version ${live.version} on the left, what you are about to publish on the right.</p>
${diffTable(`Live (version ${live.version})`, live.data ?? {}, "New version", preview.data)}
${form(
  `${pagePath(ctx)}/publish`,
  ctx.csrf,
  html`<input type="hidden" name="data" value="${preview.text}">
<button type="submit">Publish as version ${live.version + 1}</button>`,
)}
<p><a href="${pagePath(ctx)}">Cancel</a></p>`
      : form(
          `${pagePath(ctx)}/preview`,
          ctx.csrf,
          html`<label for="gc-data">New game config (a JSON object)</label>
<p class="field-help" id="gc-help">You see a diff by JSON path against the live version before anything is published.</p>
<textarea id="gc-data" name="data" aria-describedby="gc-help" required>${preview?.text ?? JSON.stringify(live.data ?? {}, null, 2)}</textarea>
<button type="submit">Preview diff</button>`,
        );
  const rows = versions.map(
    (v) => html`<tr><td>${v.version}${v.version === live.version ? html` <span class="badge">live</span>` : ""}</td>
<td>${when(v.publishedAt)}</td><td>${v.sizeBytes} B</td>
<td>${v.rolledBackFrom ? `rollback to ${v.rolledBackFrom}` : ""}</td>
<td><a href="${pagePath(ctx)}${href`?a=${v.version}&b=${live.version}`}">Diff with live</a></td>
<td>${rollbackButton(`${pagePath(ctx)}/rollback`, ctx.csrf, v.version, live.version)}</td></tr>`,
  );
  const body = html`<p>Environment <strong>${ctx.params.env}</strong> of project
<a href="${href`/console/projects/${ctx.params.projectId}`}">${ctx.params.projectId}</a>. Live version:
<strong>${live.version}</strong>${live.enabled ? "" : " (disabled)"}.
A rollback publishes that version's content again as a new version; clients get it on their next runtime-config request.</p>
${preview?.error ? html`<p class="error" role="alert">${preview.error}</p>` : ""}
${publishForm}${compare}
<h2>Versions</h2>
<table><caption class="sr-only">Game config versions</caption><thead><tr><th scope="col">Version</th><th scope="col">Published</th>
<th scope="col">Size</th><th scope="col">Note</th><th scope="col">Compare</th><th scope="col">Roll back</th></tr></thead>
<tbody>${rows}</tbody></table>`;
  return { title: `Game config (${ctx.params.env})`, body };
}

function parseObject(text: string): { data: Record<string, unknown> } | { error: string } {
  try {
    const data = JSON.parse(text);
    if (!data || typeof data !== "object" || Array.isArray(data))
      return { error: "The game config must be a JSON object." };
    return { data };
  } catch (err) {
    return { error: `Not valid JSON: ${(err as Error).message}` };
  }
}

export const configPages: Pages = [
  ["GET", "/console/projects/:projectId/game-config/:env", (ctx) => gameConfig(ctx)],
  [
    "POST",
    "/console/projects/:projectId/game-config/:env/preview",
    (ctx) => {
      const text = field(ctx, "data");
      return gameConfig(ctx, { text, ...parseObject(text) });
    },
  ],
  [
    "POST",
    "/console/projects/:projectId/game-config/:env/publish",
    async (ctx) => {
      const text = field(ctx, "data");
      const parsed = parseObject(text);
      if ("error" in parsed) return gameConfig(ctx, { text, error: parsed.error });
      const answer = await ctx.api.call("publishGameConfig", { params: envParams(ctx), body: { data: parsed.data } });
      if (!answer.ok) return gameConfig(ctx, { text, error: new ApiError(answer).message });
      return act(pagePath(ctx), async () => `Published version ${answer.body.version}.`);
    },
  ],
  [
    "POST",
    "/console/projects/:projectId/game-config/:env/rollback",
    (ctx) =>
      act(pagePath(ctx), async () => {
        const v = ok(
          await ctx.api.call("rollbackGameConfig", {
            params: envParams(ctx),
            body: { version: Number(field(ctx, "version")) },
          }),
        );
        return `Rolled back: version ${v.version} has version ${field(ctx, "version")}'s content.`;
      }),
  ],
];
