import { BillingStatus } from "../../../shared/contract/admin.ts";
import { Environment } from "../../../shared/contract/common.ts";
import { PlanName } from "../../../shared/contract/plans.ts";
import { ApiError, act, type Ctx, field, ok, type Pages, typed } from "./context.ts";
import { form, href, html, revokeCell, when } from "./html.ts";

const options = (values: readonly string[], selected?: string) =>
  values.map((v) => html`<option value="${v}" ${v === selected ? "selected" : ""}>${v}</option>`);

async function workspaces(ctx: Ctx) {
  const { workspaces } = ok(await ctx.api.call("listWorkspaces", {}));
  const body = html`<table><caption class="sr-only">Workspaces</caption><thead><tr><th scope="col">Name</th><th scope="col">Id</th>
<th scope="col">Plan</th><th scope="col">Billing</th><th scope="col">Created</th></tr></thead><tbody>
${workspaces.map(
  (
    w,
  ) => html`<tr><td><a href="${href`/console/workspaces/${w.workspaceId}`}">${w.name}</a></td><td><code>${w.workspaceId}</code></td>
<td>${w.plan}</td><td>${w.billingStatus}</td><td>${when(w.createdAt)}</td></tr>`,
)}
</tbody></table>
<h2>Create a workspace</h2>
${form(
  "/console/workspaces",
  ctx.csrf,
  html`<div class="row"><div><label for="ws-name">Name</label>
<input id="ws-name" name="name" required maxlength="100"></div>
<div><label for="ws-plan">Plan</label><select id="ws-plan" name="plan">
<option value="" selected>the server's default</option>${options(PlanName.options)}</select></div><div>
<button type="submit">Create workspace</button></div></div>`,
)}`;
  return { title: "Workspaces", body };
}

async function workspace(ctx: Ctx) {
  const id = ctx.params.workspaceId!;
  const w = ok(await ctx.api.call("getWorkspace", { params: { workspaceId: id } }));
  const { projects } = ok(await ctx.api.call("listProjects", { params: { workspaceId: id } }));
  const body = html`<p>
<code>${w.workspaceId}</code> · created ${when(w.createdAt)}${w.stripeCustomerId ? html` · Stripe customer <code>${w.stripeCustomerId}</code>` : ""}</p>
<h2>Plan and billing status</h2>
${form(
  href`/console/workspaces/${id}`,
  ctx.csrf,
  html`<div class="row"><div><label for="w-plan">Plan</label>
<select id="w-plan" name="plan">${options(PlanName.options, w.plan)}</select></div>
<div><label for="w-billing">Billing status</label><select id="w-billing" name="billingStatus">${options(BillingStatus.options, w.billingStatus)}</select>
</div><div><button type="submit">Save plan and billing</button></div></div>
<p class="field-help">Past due for more than 7 days, or unpaid: every runtime route of this workspace answers 402 until paid; data is kept.</p>`,
)}
<h2>Projects</h2>
<table><caption class="sr-only">Projects</caption><thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Created</th></tr></thead><tbody>
${projects.map(
  (
    p,
  ) => html`<tr><td><a href="${href`/console/projects/${p.projectId}`}">${p.name}</a></td><td><code>${p.projectId}</code></td>
<td>${when(p.createdAt)}</td></tr>`,
)}</tbody></table>
${form(
  href`/console/workspaces/${id}/projects`,
  ctx.csrf,
  html`<div class="row"><div><label for="p-name">New project name</label>
<input id="p-name" name="name" required maxlength="100"></div><div><button type="submit">Create project</button></div></div>`,
)}`;
  return { title: `Workspace ${w.name}`, body };
}

async function project(ctx: Ctx, shownKey?: { runtimeKey: string; keyId: string }) {
  const id = ctx.params.projectId!;
  const p = ok(await ctx.api.call("getProject", { params: { projectId: id } }));
  const { keys } = ok(await ctx.api.call("listRuntimeKeys", { params: { projectId: id } }));
  const body = html`<p><code>${p.projectId}</code> in workspace <a href="${href`/console/workspaces/${p.workspaceId}`}">${p.workspaceId}</a></p>
<ul><li><a href="${href`/console/projects/${id}/overview/prod`}">Overview, prod</a> · <a href="${href`/console/projects/${id}/overview/stage`}">stage</a></li>
<li><a href="${href`/console/projects/${id}/sync-policy`}">Sync policy</a></li>
<li><a href="${href`/console/projects/${id}/game-config/stage`}">Game config, stage</a>
</li><li><a href="${href`/console/projects/${id}/game-config/prod`}">Game config, prod</a></li><li>
<a href="${href`/console/find?projectId=${id}`}">Find a player in this project</a></li></ul>
${
  shownKey
    ? html`<div class="warn" role="status"><p>New runtime key <code>${shownKey.keyId}</code>. It is shown once: store it now.</p><p class="secret">
<code id="new-key">${shownKey.runtimeKey}</code></p></div>`
    : ""
}
<h2>Runtime keys</h2>
<table><caption class="sr-only">Runtime keys</caption><thead><tr><th scope="col">Key id</th><th scope="col">Environment</th><th scope="col">Label</th>
<th scope="col">Created</th><th scope="col">Last use</th><th scope="col">State</th></tr></thead><tbody>
${keys.map(
  (
    k,
  ) => html`<tr><td><code>${k.keyId}</code></td><td>${k.environment}</td><td>${k.label ?? ""}</td><td>${when(k.createdAt)}</td>
<td>${when(k.lastUsedAt)}</td>
<td>${revokeCell(k.revokedAt, href`/console/runtime-keys/${k.keyId}/revoke`, ctx.csrf, `Revoke ${k.keyId}`, {
    projectId: id,
  })}</td></tr>`,
)}
</tbody></table>
${form(
  href`/console/projects/${id}/runtime-keys`,
  ctx.csrf,
  html`<div class="row"><div><label for="k-env">Environment</label>
<select id="k-env" name="env">${options(["stage", "prod"])}</select></div>
<div><label for="k-label">Label</label><input id="k-label" name="label" maxlength="100"></div><div><button type="submit">Create runtime key</button></div>
</div>`,
)}`;
  return { title: `Project ${p.name}`, body };
}

export const tenancyPages: Pages = [
  ["GET", "/console/workspaces", workspaces],
  [
    "POST",
    "/console/workspaces",
    (ctx) =>
      act("/console/workspaces", async () => {
        const w = ok(
          await ctx.api.call("createWorkspace", {
            body: { name: field(ctx, "name"), plan: typed(PlanName, field(ctx, "plan") || undefined) },
          }),
        );
        return `Workspace ${w.workspaceId} created.`;
      }),
  ],
  ["GET", "/console/workspaces/:workspaceId", workspace],
  [
    "POST",
    "/console/workspaces/:workspaceId",
    (ctx) =>
      act(href`/console/workspaces/${ctx.params.workspaceId}`, async () => {
        ok(
          await ctx.api.call("updateWorkspace", {
            params: { workspaceId: ctx.params.workspaceId! },
            body: {
              plan: typed(PlanName, field(ctx, "plan")),
              billingStatus: typed(BillingStatus, field(ctx, "billingStatus")),
            },
          }),
        );
        return "Plan and billing status saved.";
      }),
  ],
  [
    "POST",
    "/console/workspaces/:workspaceId/projects",
    (ctx) =>
      act(href`/console/workspaces/${ctx.params.workspaceId}`, async () => {
        const p = ok(
          await ctx.api.call("createProject", {
            params: { workspaceId: ctx.params.workspaceId! },
            body: { name: field(ctx, "name") },
          }),
        );
        return `Project ${p.projectId} created with stage and prod.`;
      }),
  ],
  ["GET", "/console/projects/:projectId", (ctx) => project(ctx)],
  // The new key is rendered in this answer, never put in a URL or stored for a later page.
  [
    "POST",
    "/console/projects/:projectId/runtime-keys",
    async (ctx) => {
      const label = field(ctx, "label");
      const created = await ctx.api.call("createRuntimeKey", {
        params: { projectId: ctx.params.projectId!, env: typed(Environment, field(ctx, "env")) },
        body: label ? { label } : {},
      });
      if (!created.ok) return { ...(await project(ctx)), error: new ApiError(created).message };
      return project(ctx, created.body);
    },
  ],
  [
    "POST",
    "/console/runtime-keys/:keyId/revoke",
    (ctx) =>
      act(href`/console/projects/${field(ctx, "projectId")}`, async () => {
        ok(await ctx.api.call("revokeRuntimeKey", { params: { keyId: ctx.params.keyId! } }));
        return `Runtime key ${ctx.params.keyId} revoked.`;
      }),
  ],
];
