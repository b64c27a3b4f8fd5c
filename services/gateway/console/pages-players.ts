import type { Answer } from "../../../shared/contract/admin-client.ts";
import { AuthProvider } from "../../../shared/contract/identity.ts";
import type { Route } from "../../../shared/contract/route.ts";
import { act, type Ctx, field, ok, type Pages, typed } from "./context.ts";
import { boundedJson, diffTable, shortValue } from "./diff.ts";
import { button, form, href, html, json, when } from "./html.ts";
import { comparison } from "./versions.ts";

async function account(ctx: Ctx) {
  const id = ctx.params.accountId!;
  const v = ok(await ctx.api.call("getAccount", { params: { accountId: id } }));
  const a = v.account;
  const base = href`/console/accounts/${id}`;
  const status =
    a.status === "suspended"
      ? button(`${base}/unsuspend`, ctx.csrf, "Unsuspend account")
      : a.status === "active"
        ? button(`${base}/suspend`, ctx.csrf, "Suspend account", {}, "danger")
        : "";
  const body = html`<p>
<span class="badge ${a.status}">${a.status}</span> · project
<a href="${href`/console/projects/${a.projectId}`}">${a.projectId}</a> (${a.environment}) · version ${a.version} · updated ${when(a.updatedAt)}
${a.playerRef ? html` · player reference <code>${a.playerRef}</code>` : ""}${
  a.externalAccountRef
    ? html` · ${a.externalAccountRef.provider}
<code>${a.externalAccountRef.subject}</code>`
    : ""
}</p>
<p>${status} <a href="${base}/export" hx-boost="false" download>Download data-subject export (JSON)</a> ${
    a.status === "deleted"
      ? ""
      : html`·
<a href="${base}/delete">Delete account…</a>`
  }</p>
<h2>Account data</h2><p><a href="${base}/data">History, diff and restore of account data</a>${
    a.status === "deleted"
      ? ""
      : html` ·
<a href="${base}/data/edit">Edit account data…</a>`
  }</p>${json(a.accountData)}
<h2>Slots</h2><table><caption class="sr-only">Slots</caption><thead><tr><th scope="col">Slot</th><th scope="col">Status</th><th scope="col">Version</th>
<th scope="col">Updated</th></tr></thead><tbody>
${v.slots.map(
  (
    s,
  ) => html`<tr><td>${s.status === "deleted" ? s.slotId : html`<a href="${base}${href`/slots/${s.slotId}`}">${s.slotId}</a>`}</td><td>
<span class="badge ${s.status}">${s.status}</span></td><td>${s.version}</td><td>${when(s.updatedAt)}</td></tr>`,
)}</tbody></table>
<h2>Devices (sessions)</h2><table><caption class="sr-only">Sessions</caption><thead><tr><th scope="col">Session</th><th scope="col">Device label</th>
<th scope="col">Created</th><th scope="col">Last use</th><th scope="col">State</th></tr></thead><tbody>
${v.sessions.map(
  (s) => html`<tr><td><code>${s.sessionId}</code></td><td>${s.deviceLabel ?? ""}</td><td>${when(s.createdAt)}</td>
<td>${when(s.lastUsedAt)}</td>
<td>${
    s.revokedAt
      ? html`<span class="badge revoked">revoked</span>`
      : button(
          `${base}${href`/sessions/${s.sessionId}/revoke`}`,
          ctx.csrf,
          `Revoke ${s.deviceLabel || s.sessionId}`,
          {},
          "danger",
          "Revoke",
        )
  }</td>
</tr>`,
)}</tbody></table>
<h2>Linked providers</h2>
${
  v.links.length
    ? html`<ul>${v.links.map(
        (l) => html`<li>${l.provider}: ${l.label} ${l.emailHint ?? ""}, linked ${when(l.linkedAt)}
${button(`${base}${href`/links/${l.provider}/unlink`}`, ctx.csrf, `Unlink ${l.provider}`)}</li>`,
      )}</ul>`
    : html`<p class="muted">None.</p>`
}`;
  return { title: `Account ${id}`, body };
}

async function slot(ctx: Ctx) {
  const { accountId, slotId } = ctx.params as { accountId: string; slotId: string };
  const params = { accountId, slotId };
  const current = ok(await ctx.api.call("getSlot", { params }));
  const { snapshots } = ok(await ctx.api.call("slotHistory", { params }));
  const point = (version: number) => ctx.api.call("getRestorePoint", { params: { ...params, version } });
  // The timeline shows each restore point's slotInfo: the newest 20 are read, older ones on request.
  const contentOf = async (s: (typeof snapshots)[number]) => {
    const got = await point(s.version);
    return { ...s, content: got.ok ? got.body : undefined };
  };
  const points = await Promise.all(snapshots.slice(0, 20).map(contentOf));
  const base = href`/console/accounts/${accountId}/slots/${slotId}`;
  const { a, b, compare } = await comparison(ctx, async (version) => {
    const p = ok(await point(version));
    return { slotInfo: p.slotInfo, data: p.data };
  });
  const versionOptions = (sel?: number) =>
    snapshots.map(
      (s) => html`<option value="${s.version}" ${s.version === sel ? "selected" : ""}>${s.version}</option>`,
    );
  const body = html`<p>Account <a href="${href`/console/accounts/${accountId}`}">${accountId}</a> ·
<span class="badge ${current.status}">${current.status}</span> · current version ${current.version}, updated ${when(current.updatedAt)}
${current.status === "active" ? html` · <a href="${base}/edit">Edit this slot…</a>` : ""}</p>
<h2>Current content</h2>${boundedJson({ slotInfo: current.slotInfo, data: current.data })}
<h2>Compare two versions</h2>
<form method="get" action="${base}"><div class="row"><div><label for="d-a">From version</label><select id="d-a" name="a">${versionOptions(a)}</select></div>
<div><label for="d-b">To version</label><select id="d-b" name="b">${versionOptions(b ?? current.version)}</select></div><div>
<button type="submit">Show diff</button></div></div></form>${compare}
<h2>Restore points</h2><ol class="timeline">${points.map(
    (p) => html`<li ${p.version === current.version ? html`class="current" aria-current="true"` : ""}>
<strong>Version ${p.version}</strong>${p.version === current.version ? html` <span class="badge current">current</span>` : ""}
· ${when(p.createdAt)} · ${p.sizeBytes} B
<div>slotInfo: <code>${shortValue(p.content?.slotInfo ?? {})}</code></div>
${
  current.status === "active" && p.version !== current.version
    ? html`<a href="${base}${href`/restore?version=${p.version}`}">Restore version ${p.version}…</a>`
    : ""
}</li>`,
  )}</ol>
${snapshots.length > points.length ? html`<p class="muted">${snapshots.length - points.length} older restore points: compare them above.</p>` : ""}`;
  return { title: `Slot ${slotId}`, body };
}

async function confirmRestore(ctx: Ctx) {
  const { accountId, slotId } = ctx.params as { accountId: string; slotId: string };
  const version = Number(ctx.url.searchParams.get("version"));
  const current = ok(await ctx.api.call("getSlot", { params: { accountId, slotId } }));
  const point = ok(await ctx.api.call("getRestorePoint", { params: { accountId, slotId, version } }));
  const base = href`/console/accounts/${accountId}/slots/${slotId}`;
  const body = html`<div class="warn"><p>
<strong>What the player's devices will see next.</strong> The restore writes version ${version}'s content as a new version, ${current.version + 1}.
A device still on version ${current.version} or older gets a
<strong>409 conflict carrying the restored save</strong> on its next sync and loads it;
nothing a device sent since is kept in the slot (it stays in the restore points).</p></div>
${diffTable(
  `Now (version ${current.version})`,
  { slotInfo: current.slotInfo, data: current.data },
  `After restore (content of ${version})`,
  { slotInfo: point.slotInfo, data: point.data },
)}
${form(
  `${base}/restore`,
  ctx.csrf,
  html`<input type="hidden" name="version" value="${version}">
<button type="submit" class="danger">Restore version ${version} as version ${current.version + 1}</button>`,
)}
<p><a href="${base}">Cancel</a></p>`;
  return { title: `Restore slot ${slotId} to version ${version}?`, body };
}

/** Every page of the export joined into one file, as the CLI's --json gives it. */
async function exportDownload(ctx: Ctx) {
  const id = ctx.params.accountId!;
  const whole = ok(await ctx.api.allPages("exportAccount", { params: { accountId: id } }));
  return new Response(JSON.stringify(whole, null, 2), {
    headers: {
      "content-type": "application/json",
      "content-disposition": `attachment; filename="${id}-export.json"`,
      "cache-control": "no-store",
    },
  });
}

/** A change to the account of the page, then back to it with `done` as the notice. */
const accountAct = (ctx: Ctx, done: string, run: (accountId: string) => Promise<Answer<Route>>) =>
  act(href`/console/accounts/${ctx.params.accountId}`, async () => {
    ok(await run(ctx.params.accountId!));
    return done;
  });

export const playerPages: Pages = [
  ["GET", "/console/accounts/:accountId", account],
  ["GET", "/console/accounts/:accountId/export", exportDownload],
  [
    "POST",
    "/console/accounts/:accountId/suspend",
    (ctx) =>
      accountAct(ctx, "Account suspended: its devices are refused at once.", (accountId) =>
        ctx.api.call("suspendAccount", { params: { accountId } }),
      ),
  ],
  [
    "POST",
    "/console/accounts/:accountId/unsuspend",
    (ctx) =>
      accountAct(ctx, "Suspension lifted.", (accountId) => ctx.api.call("unsuspendAccount", { params: { accountId } })),
  ],
  [
    "POST",
    "/console/accounts/:accountId/sessions/:sessionId/revoke",
    (ctx) =>
      accountAct(ctx, "Session revoked: that device is refused on its next request.", (accountId) =>
        ctx.api.call("revokeSession", { params: { accountId, sessionId: ctx.params.sessionId! } }),
      ),
  ],
  [
    "POST",
    "/console/accounts/:accountId/links/:provider/unlink",
    (ctx) =>
      accountAct(ctx, "Unlinked: that identity can sign in again, to a new account.", (accountId) =>
        ctx.api.call("unlinkProvider", { params: { accountId, provider: typed(AuthProvider, ctx.params.provider) } }),
      ),
  ],
  [
    "GET",
    "/console/accounts/:accountId/delete",
    async (ctx) => ({
      title: `Delete account ${ctx.params.accountId}?`,
      body: html`<p class="warn">The account becomes unreadable at once; its slots, restore points, sessions and links are erased by the cleanup worker.
This cannot be undone.</p>
${form(href`/console/accounts/${ctx.params.accountId}/delete`, ctx.csrf, html`<button type="submit" class="danger">Delete account permanently</button>`)}<p>
<a href="${href`/console/accounts/${ctx.params.accountId}`}">Cancel</a></p>`,
    }),
  ],
  [
    "POST",
    "/console/accounts/:accountId/delete",
    (ctx) =>
      accountAct(ctx, "Account deleted; cleanup is queued.", (accountId) =>
        ctx.api.call("deleteAccount", { params: { accountId } }),
      ),
  ],
  ["GET", "/console/accounts/:accountId/slots/:slotId", slot],
  ["GET", "/console/accounts/:accountId/slots/:slotId/restore", confirmRestore],
  [
    "POST",
    "/console/accounts/:accountId/slots/:slotId/restore",
    (ctx) =>
      act(href`/console/accounts/${ctx.params.accountId}/slots/${ctx.params.slotId}`, async () => {
        const v = Number(field(ctx, "version"));
        const s = ok(
          await ctx.api.call("restoreSlot", {
            params: { accountId: ctx.params.accountId!, slotId: ctx.params.slotId! },
            body: { version: v },
          }),
        );
        return `Restored version ${v} as version ${s.version}. Devices on an older version get a 409 with it on their next sync.`;
      }),
  ],
];
