import type { Environment } from "../../shared/contract/common.ts";
import { fail } from "../../shared/contract/errors.ts";
import {
  latencyBoundsMs,
  noTraffic,
  type Overview,
  overviewEndpoints,
  type TrafficCounts,
} from "../../shared/contract/overview.ts";
import { envIdOf } from "../../shared/contract/tenant.ts";
import { callEndpoint } from "../../shared/serving/call.ts";
import type { Deps } from "./deps.ts";
import { entitlementsOf } from "./entitlements.ts";

/** The largest accounts the overview lists. */
const largestListed = 10;

/** The upper bound (ms) of the bucket holding quantile `q`; the slowest bucket has none: its lower bound. */
export function quantileMs(latency: readonly number[], q: number): number | null {
  const total = latency.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < latency.length; i++) {
    seen += latency[i]!;
    if (seen >= rank) return latencyBoundsMs[Math.min(i, latencyBoundsMs.length - 1)]!;
  }
  return latencyBoundsMs[latencyBoundsMs.length - 1]!;
}

const view = ({ latency, ...counts }: TrafficCounts) => ({
  ...counts,
  p50Ms: quantileMs(latency, 0.5),
  p99Ms: quantileMs(latency, 0.99),
});
function add(into: TrafficCounts, c: TrafficCounts): void {
  for (const k of ["requests", "syncs", "conflicts", "clientErrors", "serverErrors"] as const) into[k] += c[k];
  for (const [i, n] of c.latency.entries()) into.latency[i]! += n;
}

/**
 * `GET /admin/v1/projects/{projectId}/environments/{env}/overview` (docs/api-rules.md#overview): the last
 * `minutes` of the environment's traffic from billing's series, its players and largest accounts from
 * accounts, and the plan's limits from the workspace config keeps: one answer for the CLI and the console.
 */
export async function getOverview(deps: Deps, projectId: string, env: Environment, minutes: number): Promise<Overview> {
  const project = await deps.repo.projects.get(projectId);
  if (!project) throw fail.notFound("Project");
  const workspace = await deps.repo.workspaces.get(project.workspaceId);
  if (!workspace) throw fail.notFound("Workspace");
  const envId = envIdOf(projectId, env);
  const now = deps.now();
  const toMinute = Math.floor(now.getTime() / 60_000);
  const fromMinute = toMinute - minutes + 1;
  const [traffic, accounts] = await Promise.all([
    callEndpoint(deps.bus, overviewEndpoints.readTraffic, {
      envId,
      fromMinute,
      toMinute,
      month: now.toISOString().slice(0, 7),
    }),
    callEndpoint(deps.bus, overviewEndpoints.accountsOverview, { envId, top: largestListed }),
  ]);
  const byMinute = new Map(traffic.minutes.map((m) => [m.minute, m]));
  const totals = noTraffic();
  const series = Array.from({ length: minutes }, (_, i) => {
    const minute = fromMinute + i;
    const counts = byMinute.get(minute) ?? noTraffic();
    add(totals, counts);
    return { at: new Date(minute * 60_000).toISOString(), ...view(counts) };
  });
  const plan = deps.plans[workspace.plan];
  const limits = entitlementsOf(deps.plans, workspace, env, now);
  const { activeToday, activeSinceYesterday, newToday, newSinceYesterday } = accounts;
  return {
    projectId,
    env,
    from: new Date(fromMinute * 60_000).toISOString(),
    to: new Date((toMinute + 1) * 60_000).toISOString(),
    minutes: series,
    totals: view(totals),
    players: { activeToday, activeSinceYesterday, newToday, newSinceYesterday },
    largestAccounts: accounts.largestAccounts,
    deadLetters: accounts.deadLetters,
    plan: {
      name: workspace.plan,
      monthlyRequests: { used: traffic.monthClaimed, limit: limits.monthlyRequests },
      perMinute: { used: Math.max(0, ...series.map((m) => m.requests)), limit: limits.perMinute },
      accountBytes: { used: accounts.largestAccounts[0]?.storedBytes ?? 0, limit: plan.storage.bytesPerAccount },
    },
  };
}
