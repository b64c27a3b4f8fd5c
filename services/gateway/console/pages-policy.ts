import { act, type Ctx, field, ok, type Pages } from "./context.ts";
import { form, href, html, json, when } from "./html.ts";
import { comparison, rollbackButton } from "./versions.ts";

/** What each sync policy field does, as the client SDK applies it (docs/api-rules.md#sync-policy-and-game-config). */
const policyFields = [
  [
    "minRemoteSyncIntervalSeconds",
    "number",
    "Seconds a client waits between ordinary syncs. A sync sooner than this is still accepted, with the warning sync_interval_below_policy.",
  ],
  [
    "forceSyncCooldownSeconds",
    "number",
    "Seconds between syncs the player forces (a save button): protects the service from repeated taps.",
  ],
  [
    "syncOnAppBackground",
    "boolean",
    "Sync when the game goes to the background, so a player switching devices finds their latest save.",
  ],
  [
    "syncOnAppForeground",
    "boolean",
    "Sync when the game comes back to the foreground, to pick up a save made on another device.",
  ],
  ["syncOnReconnect", "boolean", "Sync as soon as the network comes back after the device was offline."],
  [
    "maxQueuedLocalSnapshots",
    "number",
    "Local saves a client keeps queued while offline; older ones are dropped when the queue is full.",
  ],
] as const;

const projectParams = (ctx: Ctx) => ({ projectId: ctx.params.projectId! });
const pagePath = (ctx: Ctx) => href`/console/projects/${ctx.params.projectId}/sync-policy`;
const noteInput = (id: string) => html`<label for="${id}">Note (optional)</label>
<p class="field-help" id="${id}-help">Why: kept with the version, shown in its history.</p>
<input id="${id}" name="note" maxlength="500" size="60" aria-describedby="${id}-help">`;

/** The policy form, its versions (author, note, rollback), and a diff of any two versions. */
async function syncPolicy(ctx: Ctx) {
  const id = ctx.params.projectId!;
  const params = projectParams(ctx);
  const p = ok(await ctx.api.call("getProject", { params }));
  const policy = ok(await ctx.api.call("getSyncPolicy", { params }));
  const { versions, currentVersion } = ok(await ctx.api.call("listSyncPolicyVersions", { params }));
  const inputs = policyFields.map(([name, kind, help]) =>
    kind === "boolean"
      ? html`<label for="sp-${name}">${name}</label><p class="field-help" id="sp-${name}-help">${help}</p>
<select id="sp-${name}" name="${name}" aria-describedby="sp-${name}-help"><option value="true" ${policy[name] ? "selected" : ""}>true</option>
<option value="false" ${policy[name] ? "" : "selected"}>false</option></select>`
      : html`<label for="sp-${name}">${name}</label><p class="field-help" id="sp-${name}-help">${help}</p>
<input id="sp-${name}" name="${name}" type="number" min="1" step="1" required value="${policy[name]}" aria-describedby="sp-${name}-help">`,
  );
  const { a, b, compare } = await comparison(
    ctx,
    async (version) => ok(await ctx.api.call("getSyncPolicyVersion", { params: { ...params, version } })).policy,
  );
  const options = (sel?: number) =>
    versions.map(
      (v) => html`<option value="${v.version}" ${v.version === sel ? "selected" : ""}>${v.version}</option>`,
    );
  const rows = versions.map(
    (
      v,
    ) => html`<tr><td>${v.version}${v.version === currentVersion ? html` <span class="badge">current</span>` : ""}</td>
<td>${when(v.createdAt)}</td><td>${v.author}</td>
<td>${v.note ?? ""}${v.rolledBackFrom ? html` <span class="muted">(rollback to ${v.rolledBackFrom})</span>` : ""}</td>
<td><a href="${pagePath(ctx)}${href`?a=${v.version}&b=${currentVersion}`}">Diff with current</a></td>
<td>${rollbackButton(`${pagePath(ctx)}/rollback`, ctx.csrf, v.version, currentVersion)}</td></tr>`,
  );
  const body = html`<p>Project <a href="${href`/console/projects/${id}`}">${p.name}</a>, current version <strong>${currentVersion}</strong>.
Clients read this policy from route 2 (runtime config) on their next request. Every change is a new version; a rollback makes an older
version's policy current again as a new version.</p>
${form(
  pagePath(ctx),
  ctx.csrf,
  html`<fieldset><legend>Sync policy</legend>${inputs}${noteInput("sp-note")}</fieldset>
<button type="submit">Save sync policy</button>`,
)}
<h2>Compare two versions</h2>
<form method="get" action="${pagePath(ctx)}"><div class="row"><div><label for="d-a">From version</label><select id="d-a" name="a">${options(a)}</select></div>
<div><label for="d-b">To version</label><select id="d-b" name="b">${options(b ?? currentVersion)}</select></div><div>
<button type="submit">Show diff</button></div></div></form>${compare}
<h2>Versions</h2>
<table><caption class="sr-only">Sync policy versions</caption><thead><tr><th scope="col">Version</th><th scope="col">Changed</th>
<th scope="col">By</th><th scope="col">Note</th><th scope="col">Compare</th><th scope="col">Roll back</th></tr></thead>
<tbody>${rows}</tbody></table>
<h2>Settings</h2><p class="field-help">Transfer-code lifetime, rate limits, allowed origins and session idle days (change them with the CLI's
<code>settings set</code> or the admin API).</p>${json(p.settings)}`;
  return { title: "Sync policy", body };
}

const note = (ctx: Ctx) => (field(ctx, "note") ? { note: field(ctx, "note") } : {});

export const policyPages: Pages = [
  ["GET", "/console/projects/:projectId/sync-policy", syncPolicy],
  [
    "POST",
    "/console/projects/:projectId/sync-policy",
    (ctx) =>
      act(pagePath(ctx), async () => {
        const patch = Object.fromEntries(
          policyFields.map(([name, kind]) => [
            name,
            kind === "boolean" ? field(ctx, name) === "true" : Number(field(ctx, name)),
          ]),
        );
        ok(await ctx.api.call("setSyncPolicy", { params: projectParams(ctx), body: { ...patch, ...note(ctx) } }));
        return "Sync policy saved as a new version. Clients get it on their next runtime-config request.";
      }),
  ],
  [
    "POST",
    "/console/projects/:projectId/sync-policy/rollback",
    (ctx) =>
      act(pagePath(ctx), async () => {
        const v = ok(
          await ctx.api.call("rollbackSyncPolicy", {
            params: projectParams(ctx),
            body: { version: Number(field(ctx, "version")), ...note(ctx) },
          }),
        );
        return `Rolled back: version ${v.version} has version ${v.rolledBackFrom}'s policy. Clients get it on their next runtime-config request.`;
      }),
  ],
];
