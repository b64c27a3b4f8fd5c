import type { AdminRoutes, Answer } from "../../../shared/contract/admin-client.ts";
import { Environment } from "../../../shared/contract/common.ts";
import { EditAccountDataRequest, EditSlotRequest } from "../../../shared/contract/desk.ts";
import { act, type Ctx, field, ok, type Pages, redirect, typed } from "./context.ts";
import { confirmRestore, type History, historySection } from "./desk-history.ts";
import { boundedJson } from "./diff.ts";
import { form, href, html, Raw, when } from "./html.ts";

/**
 * The player desk (docs/console.md): find a player anywhere, the history of an account's data and
 * of a save with diff and restore, and an operator's edit of a player's data as a new version with a
 * reason. Every change is an admin route (docs/api-rules.md#operators), so the CLI can do the same.
 */

type EditRoute = AdminRoutes["editSlot"] | AdminRoutes["editAccountData"];
const accountParams = (ctx: Ctx) => ({ accountId: ctx.params.accountId! });
const slotParams = (ctx: Ctx) => ({ accountId: ctx.params.accountId!, slotId: ctx.params.slotId! });
const saveParams = (ctx: Ctx) => ({
  projectId: ctx.params.projectId!,
  env: typed(Environment, ctx.params.env),
  saveId: ctx.params.saveId!,
});

async function find(ctx: Ctx) {
  const q = ctx.url.searchParams;
  const got = (name: string) => (q.get(name) ?? "").trim();
  const projectId = got("projectId");
  const env = got("env") || "prod";
  if (got("accountId")) return redirect(href`/console/accounts/${got("accountId")}`);
  if (projectId && got("saveId")) return redirect(href`/console/saves/${projectId}/${env}/${got("saveId")}`);
  const by: Record<string, string> | undefined = got("playerRef")
    ? { playerRef: got("playerRef") }
    : got("provider") && got("subject")
      ? { provider: got("provider"), subject: got("subject") }
      : undefined;
  let results = html``;
  if (by) {
    const found = ok(await ctx.api.call("findPlayers", { query: by }));
    results = found.accounts.length
      ? html`<table><caption>Accounts found, in every project and environment</caption><thead><tr>
<th scope="col">Account</th><th scope="col">Project</th><th scope="col">Environment</th><th scope="col">Status</th><th scope="col">References</th>
<th scope="col">Created</th></tr></thead>
<tbody>${found.accounts.map(
          (a) => html`<tr><td><a href="${href`/console/accounts/${a.accountId}`}">${a.accountId}</a></td>
<td><a href="${href`/console/projects/${a.projectId}`}">${a.projectId}</a></td><td>${a.environment}</td>
<td><span class="badge ${a.status}">${a.status}</span></td>
<td>${a.playerRef ?? ""}${a.externalAccountRef ? html` ${a.externalAccountRef.provider}:<code>${a.externalAccountRef.subject}</code>` : ""}</td>
<td>${when(a.createdAt)}</td></tr>`,
        )}</tbody></table>`
      : html`<p role="status">No account in any project or environment matches.</p>`;
  }
  const input = (id: string, name: string, label: string, extra = "") =>
    html`<div><label for="${id}">${label}</label><input id="${id}" name="${name}" value="${got(name)}" ${new Raw(extra)}></div>`;
  const body = html`<p>Operators only: the runtime API has no lookup by reference. No project is needed: a reference is searched in every
project and both environments.</p>
<form method="get" action="/console/find"><fieldset><legend>By account id</legend>
${input("f-acc", "accountId", "Account id", 'placeholder="acc_..." size="40"')}
<button type="submit">Open account</button></fieldset></form>
<form method="get" action="/console/find"><fieldset><legend>By player or external account</legend><div class="row">
${input("f-ref", "playerRef", "Player reference")}${input("f-prov", "provider", "External provider")}${input("f-sub", "subject", "External subject")}</div>
<button type="submit">Find</button></fieldset></form>
<form method="get" action="/console/find"><fieldset><legend>A save (save-based model)</legend><div class="row">
${input("f-prj", "projectId", "Project id", 'required placeholder="prj_..."')}
<div><label for="f-env">Environment</label><select id="f-env" name="env">${["prod", "stage"].map(
    (e) => html`<option value="${e}" ${e === env ? "selected" : ""}>${e}</option>`,
  )}</select></div>${input("f-save", "saveId", "Save id", "required")}</div>
<button type="submit">Open save</button></fieldset></form>${results}`;
  return { title: "Find a player", body };
}

async function dataHistory(ctx: Ctx): Promise<History> {
  const params = accountParams(ctx);
  const { account } = ok(await ctx.api.call("getAccount", { params }));
  return {
    page: href`/console/accounts/${ctx.params.accountId}/data`,
    points: async () => ok(await ctx.api.call("accountDataHistory", { params })).snapshots,
    contentOf: async (version) =>
      ok(await ctx.api.call("getDataRestorePoint", { params: { ...params, version } })).accountData,
    restore: async (version) => ok(await ctx.api.call("restoreAccountData", { params, body: { version } })).version,
    current: { version: account.version, content: account.accountData },
    restorable: account.status !== "deleted",
  };
}

async function saveHistory(ctx: Ctx) {
  const params = saveParams(ctx);
  const { save } = ok(await ctx.api.call("getSave", { params }));
  const history: History = {
    page: href`/console/saves/${ctx.params.projectId}/${ctx.params.env}/${ctx.params.saveId}`,
    points: async () => ok(await ctx.api.call("saveHistory", { params })).restorePoints,
    contentOf: async (version) => {
      const p = ok(await ctx.api.call("getSaveRestorePoint", { params: { ...params, version } }));
      return { metadata: p.metadata, state: p.state };
    },
    restore: async (version) => ok(await ctx.api.call("restoreSave", { params, body: { version } })).save.version,
    current: { version: save.version, content: { metadata: save.metadata, state: save.state } },
    restorable: true,
  };
  return { ...history, save };
}

const restorePost = (ctx: Ctx, h: History) =>
  act(h.page, async () => {
    const v = Number(field(ctx, "version"));
    const now = await h.restore(v);
    return `Restored version ${v} as version ${now}. Devices on an older version get a 409 with it on their next sync.`;
  });

/** The edit form: the content as JSON, the version it was read at, and the reason the audit log keeps. */
function editForm(ctx: Ctx, action: string, version: number, fields: Array<[string, string, unknown]>, back: string) {
  return html`<div class="warn"><p>Your edit is written as version ${version + 1}, the way a device's sync is: a device still on version ${version}
or older gets a <strong>409 conflict carrying your edit</strong> on its next sync. If anything writes first, nothing is written and you are told.</p></div>
${form(
  action,
  ctx.csrf,
  html`<input type="hidden" name="baseVersion" value="${version}">
${fields.map(
  ([name, label, value]) => html`<label for="e-${name}">${label} (JSON)</label>
<textarea id="e-${name}" name="${name}" required>${JSON.stringify(value, null, 2)}</textarea>`,
)}
<label for="e-reason">Reason</label><p class="field-help" id="e-reason-help">Kept in the audit log with the change, e.g. a support ticket.</p>
<input id="e-reason" name="reason" required maxlength="500" size="60" aria-describedby="e-reason-help">
<p><button type="submit" class="danger">Write as version ${version + 1}</button></p>`,
)}<p><a href="${back}">Cancel</a></p>`;
}

/** Posts an edit: refused JSON, a stale base (409) and the API's errors come back to the form as one line. */
async function editPost(
  ctx: Ctx,
  back: string,
  editPage: string,
  send: (parsed: Record<string, unknown>, edit: { baseVersion: number; reason: string }) => Promise<Answer<EditRoute>>,
) {
  const parsed: Record<string, unknown> = {};
  for (const name of ["data", "slotInfo", "accountData"]) {
    if (!ctx.form.has(name)) continue;
    try {
      parsed[name] = JSON.parse(ctx.form.get(name)!);
    } catch {
      return redirect(editPage, { error: `${name} is not JSON: nothing was written.` });
    }
  }
  const answer = await send(parsed, { baseVersion: Number(field(ctx, "baseVersion")), reason: field(ctx, "reason") });
  if (answer.conflict) {
    const now = answer.body.version;
    return redirect(editPage, {
      error: `Nothing was written: it is at version ${now} now (a device or another operator wrote first). Edit again.`,
    });
  }
  return act(
    back,
    async () =>
      `Written as version ${ok<EditRoute>(answer).version}, with your reason in the audit log. Devices on an older version get a 409 with it.`,
  );
}

export const deskPages: Pages = [
  ["GET", "/console/find", find],
  [
    "GET",
    "/console/accounts/:accountId/data",
    async (ctx) => {
      const h = await dataHistory(ctx);
      const base = href`/console/accounts/${ctx.params.accountId}`;
      const body = html`<p>Account <a href="${base}">${ctx.params.accountId}</a> · current version ${h.current.version} ·
<a href="${base}/data/edit">Edit account data…</a></p><h2>Current account data</h2>${boundedJson(h.current.content)}${await historySection(ctx, h)}`;
      return { title: `Account data of ${ctx.params.accountId}`, body };
    },
  ],
  [
    "GET",
    "/console/accounts/:accountId/data/restore",
    async (ctx) => confirmRestore(ctx, await dataHistory(ctx), "account data"),
  ],
  ["POST", "/console/accounts/:accountId/data/restore", async (ctx) => restorePost(ctx, await dataHistory(ctx))],
  [
    "GET",
    "/console/accounts/:accountId/data/edit",
    async (ctx) => {
      const { account } = ok(await ctx.api.call("getAccount", { params: accountParams(ctx) }));
      const base = href`/console/accounts/${ctx.params.accountId}`;
      return {
        title: `Edit account data of ${ctx.params.accountId}`,
        body: editForm(
          ctx,
          `${base}/data/edit`,
          account.version,
          [["accountData", "Account data", account.accountData]],
          `${base}/data`,
        ),
      };
    },
  ],
  [
    "POST",
    "/console/accounts/:accountId/data/edit",
    (ctx) => {
      const base = href`/console/accounts/${ctx.params.accountId}`;
      return editPost(ctx, `${base}/data`, `${base}/data/edit`, (p, edit) =>
        ctx.api.call("editAccountData", {
          params: accountParams(ctx),
          body: typed(EditAccountDataRequest, { ...edit, accountData: p.accountData }),
        }),
      );
    },
  ],
  [
    "GET",
    "/console/accounts/:accountId/slots/:slotId/edit",
    async (ctx) => {
      const slot = ok(await ctx.api.call("getSlot", { params: slotParams(ctx) }));
      const base = href`/console/accounts/${ctx.params.accountId}/slots/${ctx.params.slotId}`;
      return {
        title: `Edit slot ${ctx.params.slotId}`,
        body: editForm(
          ctx,
          `${base}/edit`,
          slot.version,
          [
            ["slotInfo", "Slot info", slot.slotInfo],
            ["data", "Data", slot.data],
          ],
          base,
        ),
      };
    },
  ],
  [
    "POST",
    "/console/accounts/:accountId/slots/:slotId/edit",
    (ctx) => {
      const base = href`/console/accounts/${ctx.params.accountId}/slots/${ctx.params.slotId}`;
      return editPost(ctx, base, `${base}/edit`, (p, edit) =>
        ctx.api.call("editSlot", {
          params: slotParams(ctx),
          body: typed(EditSlotRequest, { ...edit, slotInfo: p.slotInfo, data: p.data }),
        }),
      );
    },
  ],
  [
    "GET",
    "/console/saves/:projectId/:env/:saveId",
    async (ctx) => {
      const h = await saveHistory(ctx);
      const { save } = h;
      return {
        title: `Save ${save.saveId}`,
        body: html`<p>Project <a href="${href`/console/projects/${ctx.params.projectId}`}">${ctx.params.projectId}</a>
(${ctx.params.env}) · external user <code>${save.externalUserId}</code> · current version ${save.version} · updated ${when(save.updatedAt)}</p>
<h2>Metadata</h2>${boundedJson(save.metadata)}<h2>State</h2>${boundedJson(save.state)}${await historySection(ctx, h)}`,
      };
    },
  ],
  [
    "GET",
    "/console/saves/:projectId/:env/:saveId/restore",
    async (ctx) => confirmRestore(ctx, await saveHistory(ctx), `save ${ctx.params.saveId}`),
  ],
  ["POST", "/console/saves/:projectId/:env/:saveId/restore", async (ctx) => restorePost(ctx, await saveHistory(ctx))],
];
