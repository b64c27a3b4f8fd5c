import { OperatorRole } from "../../../shared/contract/operators.ts";
import { operatorRoles } from "../../../shared/contract/route.ts";
import { ApiError, act, type Ctx, field, ok, type Pages, typed } from "./context.ts";
import { form, href, html, revokeCell, when } from "./html.ts";

const roleHelp =
  "owner: everything. support: read players, restore, sign out devices, export; no keys, plans or config. viewer: read only.";

/** Operators (owners only, as the admin API decides): who may act, with which role; a new one's token shown once. */
async function operators(ctx: Ctx, shown?: { operatorId: string; operatorToken: string }) {
  const { operators } = ok(await ctx.api.call("listOperators", {}));
  const body = html`<p>Each operator signs in with their own token and is named in the audit log. ${roleHelp}</p>
${
  shown
    ? html`<div class="warn" role="status"><p>New operator <code>${shown.operatorId}</code>. The token is shown once: hand it over now.</p>
<p class="secret"><code>${shown.operatorToken}</code></p></div>`
    : ""
}
<table><caption class="sr-only">Operators</caption><thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Role</th>
<th scope="col">Created</th><th scope="col">By</th><th scope="col">Status</th></tr></thead><tbody>
${operators.map(
  (o) => html`<tr><td>${o.name}</td><td><code>${o.operatorId}</code></td><td>${o.role}</td><td>${when(o.createdAt)}</td>
<td>${o.createdBy}</td><td>${revokeCell(
    o.revokedAt,
    href`/console/operators/${o.operatorId}/revoke`,
    ctx.csrf,
    `Revoke ${o.name}`,
  )}</td></tr>`,
)}</tbody></table>
<h2>Add an operator</h2>
${form(
  "/console/operators",
  ctx.csrf,
  html`<div class="row"><div><label for="op-name">Name</label>
<input id="op-name" name="name" required maxlength="100"></div>
<div><label for="op-role">Role</label><select id="op-role" name="role">
${operatorRoles.map((r) => html`<option value="${r}" ${r === "viewer" ? "selected" : ""}>${r}</option>`)}</select></div>
<div><button type="submit">Add operator</button></div></div>`,
)}`;
  return { title: "Operators", body };
}

export const operatorPages: Pages = [
  ["GET", "/console/operators", (ctx) => operators(ctx)],
  // The token is rendered in this answer only, never put in a URL or kept for a later page.
  [
    "POST",
    "/console/operators",
    async (ctx) => {
      const made = await ctx.api.call("createOperator", {
        body: { name: field(ctx, "name"), role: typed(OperatorRole, field(ctx, "role")) },
      });
      if (!made.ok) return { ...(await operators(ctx)), error: new ApiError(made).message };
      return operators(ctx, made.body);
    },
  ],
  [
    "POST",
    "/console/operators/:operatorId/revoke",
    (ctx) =>
      act("/console/operators", async () => {
        ok(await ctx.api.call("revokeOperator", { params: { operatorId: ctx.params.operatorId! } }));
        return `Operator ${ctx.params.operatorId} revoked: signed out everywhere.`;
      }),
  ],
];
