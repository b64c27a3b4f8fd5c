import { Environment } from "../../../shared/contract/common.ts";
import type { Overview } from "../../../shared/contract/overview.ts";
import { ApiError, type Ctx, ok, type Pages } from "./context.ts";
import { href, html, type Raw, when } from "./html.ts";

/** Windows the page offers, in minutes; the admin route takes any from 1 to 1440. */
const windows = [
  [60, "1 hour"],
  [360, "6 hours"],
  [1440, "24 hours"],
] as const;
/** Projects the landing page lists per workspace: the rest are a click away on the workspace's page. */
const projectsListed = 20;

const number = (n: number) => n.toLocaleString("en-US");
function bytes(n: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  for (; n >= 1024 && i < units.length - 1; i++) n /= 1024;
  return `${i === 0 ? n : n.toFixed(1)} ${units[i]}`;
}
const ms = (v: number | null) => (v === null ? "–" : v >= 10_000 ? "≥ 10 s" : `≤ ${number(v)} ms`);

/**
 * A sparkline of one series: an inline SVG (no script, no style attribute: the CSP allows neither),
 * named for assistive technology by its total and peak; the per-minute table below holds the numbers.
 */
function spark(label: string, values: number[], cls: string): Raw {
  const w = 240;
  const h = 40;
  const peak = Math.max(1, ...values);
  const step = values.length > 1 ? w / (values.length - 1) : w;
  const points = values
    .map((v, i) => `${(i * step).toFixed(1)},${(h - 2 - (v / peak) * (h - 4)).toFixed(1)}`)
    .join(" ");
  const total = values.reduce((a, b) => a + b, 0);
  return html`<svg class="spark ${cls}" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img"
aria-label="${label}: ${number(total)} in the window, at most ${number(Math.max(0, ...values))} a minute"><polyline points="${points}" fill="none"
stroke="currentColor" stroke-width="2"/></svg>`;
}

function tile(label: string, value: string, graph?: Raw): Raw {
  return html`<div class="tile"><dt>${label}</dt><dd><span class="big">${value}</span>${graph ?? ""}</dd></div>`;
}

function usage(label: string, used: number, limit: number | null, show: (n: number) => string): Raw {
  if (limit === null)
    return html`<tr><th scope="row">${label}</th><td>${show(used)}</td><td>unlimited</td><td></td></tr>`;
  const share = Math.round((used / Math.max(1, limit)) * 100);
  return html`<tr><th scope="row">${label}</th><td>${show(used)}</td><td>${show(limit)}</td><td><meter min="0" max="${limit}" value="${Math.min(used, limit)}"
high="${limit * 0.8}" aria-label="${label}: ${share}% of the limit">${share}%</meter> ${share}%</td></tr>`;
}

function body(o: Overview, projectId: string, minutes: number): Raw {
  const series = (k: "requests" | "syncs" | "conflicts" | "clientErrors" | "serverErrors") =>
    o.minutes.map((m) => m[k]);
  const t = o.totals;
  const other = o.env === "prod" ? "stage" : "prod";
  const rows = o.minutes.filter((m) => m.requests > 0).reverse();
  return html`<p><a href="${href`/console/projects/${projectId}`}">Project <code>${projectId}</code></a> · <strong>${o.env}</strong> ·
<a href="${href`/console/projects/${projectId}/overview/${other}`}?minutes=${minutes}">${other}</a> · plan ${o.plan.name}</p>
<nav aria-label="Window"><ul class="tabs">${windows.map(
    ([m, label]) =>
      html`<li>${
        m === minutes
          ? html`<strong aria-current="page">${label}</strong>`
          : html`<a href="${href`/console/projects/${projectId}/overview/${o.env}`}?minutes=${m}">${label}</a>`
      }</li>`,
  )}</ul></nav>
<p class="muted">From ${when(o.from)} to ${when(o.to)}. Every gateway copy adds its counts every 10 seconds.</p>
<h2>Traffic</h2>
<dl class="tiles">
${tile("Requests", number(t.requests), spark("Requests", series("requests"), "req"))}
${tile("Syncs", number(t.syncs), spark("Syncs", series("syncs"), "req"))}
${tile("Sync conflicts", number(t.conflicts), spark("Sync conflicts", series("conflicts"), "s-warn"))}
${tile("4xx answers", number(t.clientErrors), spark("4xx answers", series("clientErrors"), "s-warn"))}
${tile("5xx answers", number(t.serverErrors), spark("5xx answers", series("serverErrors"), "s-bad"))}
${tile("Latency p50 / p99", `${ms(t.p50Ms)} / ${ms(t.p99Ms)}`)}
</dl>
<h2>Players</h2>
<dl class="tiles">
${tile("Active today (UTC)", number(o.players.activeToday))}
${tile("Active since yesterday", number(o.players.activeSinceYesterday))}
${tile("New accounts today", number(o.players.newToday))}
${tile("New since yesterday", number(o.players.newSinceYesterday))}
<div class="tile"><dt>Dead letters</dt><dd><a class="big" href="/console/dead-letters">${number(o.deadLetters)}</a></dd></div>
</dl>
<h2>Plan usage</h2>
<table><caption class="sr-only">Plan usage against its limits</caption><thead><tr><th scope="col">What</th><th scope="col">Used</th>
<th scope="col">Limit</th><th scope="col">Share</th></tr></thead><tbody>
${usage("Requests this month (claimed by gateway copies, in blocks)", o.plan.monthlyRequests.used, o.plan.monthlyRequests.limit, number)}
${usage("Busiest minute of the window", o.plan.perMinute.used, o.plan.perMinute.limit, number)}
${usage("Largest account's storage", o.plan.accountBytes.used, o.plan.accountBytes.limit, bytes)}
</tbody></table>
<h2>Largest accounts</h2>
${
  o.largestAccounts.length
    ? html`<table><caption class="sr-only">Largest accounts by stored bytes, history included</caption><thead><tr>
<th scope="col">Account</th><th scope="col">Player</th><th scope="col">Stored</th><th scope="col">Current state</th>
<th scope="col">History</th></tr></thead><tbody>
${o.largestAccounts.map(
  (a) => html`<tr><td><a href="${href`/console/accounts/${a.accountId}`}"><code>${a.accountId}</code></a></td>
<td>${a.playerRef ?? ""}</td>
<td>${bytes(a.storedBytes)}</td><td>${bytes(a.currentBytes)}</td><td>${bytes(a.storedBytes - a.currentBytes)}</td></tr>`,
)}</tbody></table>`
    : html`<p role="status">No account stores anything yet.</p>`
}
<details><summary>Minute by minute (${rows.length} ${rows.length === 1 ? "minute" : "minutes"} with requests)</summary>
<table><caption class="sr-only">Traffic minute by minute, newest first</caption><thead><tr><th scope="col">Minute</th><th scope="col">Requests</th>
<th scope="col">Syncs</th><th scope="col">Conflicts</th><th scope="col">4xx</th><th scope="col">5xx</th><th scope="col">p50</th>
<th scope="col">p99</th></tr></thead>
<tbody>${rows.map(
    (
      m,
    ) => html`<tr><td>${when(m.at)}</td><td>${m.requests}</td><td>${m.syncs}</td><td>${m.conflicts}</td><td>${m.clientErrors}</td>
<td>${m.serverErrors}</td><td>${ms(m.p50Ms)}</td><td>${ms(m.p99Ms)}</td></tr>`,
  )}</tbody></table></details>`;
}

async function overview(ctx: Ctx) {
  const projectId = ctx.params.projectId!;
  const env = Environment.safeParse(ctx.params.env);
  if (!env.success)
    throw new ApiError({
      status: 404,
      body: { error: { code: "not_found", message: "No such environment: stage or prod." } },
    });
  const asked = Number(ctx.url.searchParams.get("minutes") ?? 60);
  const minutes = windows.some(([m]) => m === asked) ? asked : 60;
  const o: Overview = ok(
    await ctx.api.call("getOverview", { params: { projectId, env: env.data }, query: { minutes } }),
  );
  return { title: `Overview · ${env.data}`, body: body(o, projectId, minutes) };
}

/** The console's landing page: every workspace's projects, each with its two environments' overviews. */
async function landing(ctx: Ctx) {
  const { workspaces } = ok(await ctx.api.call("listWorkspaces", {}));
  const lists = await Promise.all(
    workspaces.map(async (w) => {
      const projects = ok(
        await ctx.api.call("listProjects", {
          params: { workspaceId: w.workspaceId },
          query: { limit: projectsListed },
        }),
      );
      return { w, projects };
    }),
  );
  const body = html`<p>Pick an environment for its traffic, players, largest accounts and plan usage.</p>
${lists.map(
  ({
    w,
    projects,
  }) => html`<h2><a href="${href`/console/workspaces/${w.workspaceId}`}">${w.name}</a> <span class="muted">(${w.plan})</span></h2>
${
  projects.projects.length
    ? html`<ul>${projects.projects.map(
        (p) => html`<li>${p.name} <code>${p.projectId}</code>:
<a href="${href`/console/projects/${p.projectId}/overview/prod`}">prod</a> ·
<a href="${href`/console/projects/${p.projectId}/overview/stage`}">stage</a></li>`,
      )}</ul>
${projects.next !== undefined ? html`<p><a href="${href`/console/workspaces/${w.workspaceId}`}">More projects</a></p>` : ""}`
    : html`<p class="muted">No projects yet.</p>`
}`,
)}
${workspaces.length === 0 ? html`<p role="status">No workspaces yet: <a href="/console/workspaces">create one</a>.</p>` : ""}`;
  return { title: "Overview", body };
}

export const dashboardPages: Pages = [
  ["GET", "/console", landing],
  ["GET", "/console/projects/:projectId/overview/:env", overview],
];
