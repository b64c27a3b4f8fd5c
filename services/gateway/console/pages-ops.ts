import type { AuditEntry } from "../../../shared/contract/operator.ts";
import { act, type Ctx, ok, type Pages } from "./context.ts";
import { diffTable } from "./diff.ts";
import { button, href, html, when } from "./html.ts";

async function deadLetters(ctx: Ctx) {
  const { deadLetters } = ok(await ctx.api.call("listDeadLetters", {}));
  const body = deadLetters.length
    ? html`<table><caption class="sr-only">Dead letters</caption><thead><tr><th scope="col">Id</th><th scope="col">Queue</th><th scope="col">Job</th>
<th scope="col">Deliveries</th><th scope="col">Last error</th><th scope="col">Failed</th><th scope="col">Actions</th></tr></thead><tbody>
${deadLetters.map(
  (
    d,
  ) => html`<tr><td><code>${d.deadLetterId}</code></td><td>${d.queue}</td><td><code>${JSON.stringify(d.job)}</code></td>
<td>${d.deliveries}</td><td>${d.error}</td><td>${when(d.failedAt)}</td>
<td>${button(href`/console/dead-letters/${d.deadLetterId}/retry`, ctx.csrf, `Retry ${d.deadLetterId}`, {}, "", "Retry")}
${button(href`/console/dead-letters/${d.deadLetterId}/discard`, ctx.csrf, `Discard ${d.deadLetterId}`, {}, "danger", "Discard")}</td></tr>`,
)}</tbody></table>`
    : html`<p role="status">No dead letters: every cleanup job has run.</p>`;
  return {
    title: "Dead letters",
    body: html`<p>Cleanup jobs that ran out of deliveries. Retry queues one again with fresh deliveries; discard drops it.</p>${body}`,
  };
}

const marked = (v: unknown, mark: string) =>
  Boolean(
    v &&
      typeof v === "object" &&
      (v as Record<string, unknown>)[mark] === true &&
      typeof (v as Record<string, unknown>).sizeBytes === "number",
  );

/**
 * An entry's before and after. A value over 64 KB is not in the list (`large`): its entry's own page
 * shows it whole. One the gateway could not keep at all (`clipped`) is said so, never shown as no change.
 */
function change(e: AuditEntry, bounds?: Parameters<typeof diffTable>[4]) {
  if (marked(e.before, "clipped") || marked(e.after, "clipped")) {
    return html`<p role="status">This change was too large to keep in the log; its values are not shown.</p>`;
  }
  if (marked(e.before, "large") || marked(e.after, "large")) {
    return html`<p><a href="${href`/console/audit/${e.auditId}`}">Show this change</a> (its values are over 64 KB).</p>`;
  }
  return diffTable("Before", e.before, "After", e.after, bounds);
}

async function auditEntry(ctx: Ctx) {
  const e = ok(await ctx.api.call("getAuditEntry", { params: { auditId: ctx.params.auditId! } }));
  return {
    title: `Audit entry ${e.auditId}`,
    body: html`<p>${when(e.at)} · <strong>${e.actor}</strong> · ${e.action} · <code>${e.method} ${e.path}</code>;
answered ${e.status}.${e.reason ? html` Reason: <q>${e.reason}</q>.` : ""}</p>${change(e)}<p><a href="/console/audit">Back to the audit log</a></p>`,
  };
}

async function audit(ctx: Ctx) {
  const q = ctx.url.searchParams;
  const filters = new URLSearchParams();
  for (const k of ["target", "action", "since", "offset"]) if (q.get(k)) filters.set(k, q.get(k)!.trim());
  filters.set("limit", "25");
  const { entries, next } = ok(await ctx.api.call("listAudit", { query: Object.fromEntries(filters) }));
  const more = new URLSearchParams(filters);
  if (next !== undefined) more.set("offset", String(next));
  const body = html`<p>Every change made through the admin API, by the console, the CLI or a script, newest first.</p>
<form method="get" action="/console/audit"><div class="row"><div><label for="a-target">Target id</label>
<input id="a-target" name="target" value="${q.get("target") ?? ""}" placeholder="prj_..., acc_..."></div>
<div><label for="a-action">Action</label><input id="a-action" name="action" value="${q.get("action") ?? ""}" placeholder="adminSetSyncPolicy"></div>
<div><label for="a-since">Since (ISO time)</label><input id="a-since" name="since" value="${q.get("since") ?? ""}" placeholder="2026-01-31T00:00:00Z">
</div><div><button type="submit">Filter</button></div></div></form>
${entries.map(
  (
    e,
  ) => html`<details><summary>${when(e.at)} · <strong>${e.actor}</strong> · ${e.action} · <code>${e.method} ${e.path}</code>
${e.reason ? html` · reason: <q>${e.reason}</q>` : ""}</summary>
<p>Target <a href="${href`/console/audit?target=${e.target}`}">${e.target}</a>; ids ${JSON.stringify(e.targets)}; answered ${e.status}.</p>
${change(e, { maxBytes: 3072 })}</details>`,
)}
${entries.length === 0 ? html`<p role="status">No entries.</p>` : ""}${
  next !== undefined
    ? html`<p><a href="/console/audit?${more}">Older entries</a>
</p>`
    : ""
}`;
  return { title: "Audit log", body };
}

export const opsPages: Pages = [
  ["GET", "/console/dead-letters", deadLetters],
  [
    "POST",
    "/console/dead-letters/:id/retry",
    (ctx) =>
      act("/console/dead-letters", async () => {
        ok(await ctx.api.call("retryDeadLetter", { params: { deadLetterId: ctx.params.id! } }));
        return "Queued again.";
      }),
  ],
  [
    "POST",
    "/console/dead-letters/:id/discard",
    (ctx) =>
      act("/console/dead-letters", async () => {
        ok(await ctx.api.call("discardDeadLetter", { params: { deadLetterId: ctx.params.id! } }));
        return "Discarded.";
      }),
  ],
  ["GET", "/console/audit", audit],
  ["GET", "/console/audit/:auditId", auditEntry],
];
