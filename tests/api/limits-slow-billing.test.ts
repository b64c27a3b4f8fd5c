import { expect, test } from "bun:test";
import { internal } from "../../shared/contract/internal.ts";
import { type Answer, admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { tapNats } from "../helpers/bus-tap.ts";
import { awayFromWindowEnd } from "../helpers/clock.ts";
import { type Deployment, startDistributed, startEmbedded } from "../helpers/deployments.ts";
import { capturingLogger } from "../helpers/kept.ts";

/**
 * docs/plans-and-limits.md: a billing service that is alive on the bus but does not answer (every copy stopped
 * with SIGSTOP, not killed) costs a runtime request one claim deadline at most: the three limits'
 * claims go out at once, and once they miss the deadline the gateway counts alone, sending no claim
 * per request, until billing answers again; then it claims again and a limit holds exactly through
 * two copies. In the embedded deployment billing runs in the gateway's process and cannot stop alone:
 * there the bus holds the claims billing would get until the test lets them go (the logic itself is in
 * tests/contract/claims-slow-billing.test.ts).
 */
const limit = 10;
const wedgedRequests = 6;
const answeredAgain = "usage claims answered again";

test("billing stopped (SIGSTOP): requests answer without a claim each; resumed, claims come back and a limit holds exactly", async () => {
  const d = await startDistributed({ copies: { gateway: 2, billing: 2 }, env: { LOG_LEVEL: "info" } });
  const [a, b] = d.bases.map((base): Deployment => ({ ...d, request: (path, init) => fetch(`${base}${path}`, init) }));
  const gatewayA = d.processes.filter((p) => p.name === "gateway")[0]!;
  const billing = d.byName.billing.map((p) => p.pid);
  const tap = await tapNats(d.natsUrl, [internal.claimUsage.subject]);
  try {
    // A plan with a month's and a minute's limit, and an account limit: three claims per request.
    const t = await newTenant(d, "starter");
    await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, {
      rateLimits: { sessionRequestsPerMinute: limit },
    });
    // Made through copy B: copy A has claimed nothing for this tenant when billing stops.
    const [first, second] = [await newAccount(b!, t.key), await newAccount(b!, t.key)];
    await awayFromWindowEnd(60, 30);
    const get = (via: Deployment, acc: typeof first) =>
      call(via, "GET", `/api/v1/accounts/${acc.accountId}`, { key: t.key, session: acc.session });

    const before = tap.on(internal.claimUsage.subject).length;
    for (const pid of billing) process.kill(pid, "SIGSTOP");
    const statuses: number[] = [];
    let wedged: ReturnType<typeof tap.on> = [];
    try {
      for (let i = 0; i < wedgedRequests; i++) statuses.push((await get(a!, first)).status);
      wedged = tap.on(internal.claimUsage.subject).slice(before);
    } finally {
      for (const pid of billing) process.kill(pid, "SIGCONT");
    }
    expect(statuses).toEqual(Array(wedgedRequests).fill(200));
    // The first request's three claims, sent together; then at most one claim at a time probes billing.
    expect(wedged.length).toBeLessThanOrEqual(4);
    const kinds = wedged
      .slice(0, 3)
      .map((c) => `${String(c.data.window).split(":")[0]}:${String(c.data.scope).split(":")[0]}`);
    expect(kinds.sort()).toEqual(["minute:account", "minute:env", "month:env"]);

    // Resumed, billing answers the claims it holds (or the next probe): copy A says it counts by claims again.
    for (let i = 0; i < 120 && !(await Bun.file(gatewayA.log).text()).includes(answeredAgain); i++) {
      await get(a!, first);
      await Bun.sleep(250);
    }
    expect(await Bun.file(gatewayA.log).text()).toContain(answeredAgain);
    // Both copies by claims: the second account's limit holds exactly through them, 3 requests at a time.
    const byStatus: Record<number, number> = {};
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < 3 * limit; i = next++) {
        const { status }: Answer = await get(i % 2 ? b! : a!, second);
        byStatus[status] = (byStatus[status] ?? 0) + 1;
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    expect(byStatus).toEqual({ 200: limit, 429: 2 * limit });
  } finally {
    await tap.stop();
    await d.stop();
  }
}, 240_000);

test("embedded: claims held on the way to billing: requests answer without a claim each; let go, claims come back and a limit holds", async () => {
  const lines: string[] = [];
  const d = await startEmbedded({}, { log: capturingLogger(lines) });
  const subject = internal.claimUsage.subject;
  const request = d.bus.request;
  const claims: unknown[] = [];
  let held: (() => void)[] | undefined;
  d.bus.request = (to, data, options) => {
    if (to !== subject) return request.call(d.bus, to, data, options);
    claims.push(data);
    const hold = held;
    return hold
      ? new Promise<void>((go) => hold.push(go)).then(() => request.call(d.bus, to, data, options))
      : request.call(d.bus, to, data, options);
  };
  const letGo = () => {
    const waiting = held ?? [];
    held = undefined;
    for (const go of waiting) go();
  };
  try {
    const t = await newTenant(d, "starter");
    await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, {
      rateLimits: { sessionRequestsPerMinute: limit },
    });
    await awayFromWindowEnd(60, 30);
    const [first, second] = [await newAccount(d, t.key), await newAccount(d, t.key)];
    const get = (acc: typeof first) =>
      call(d, "GET", `/api/v1/accounts/${acc.accountId}`, { key: t.key, session: acc.session });

    const before = claims.length;
    held = [];
    const statuses: number[] = [];
    try {
      for (let i = 0; i < wedgedRequests; i++) statuses.push((await get(first)).status);
    } finally {
      letGo();
    }
    expect(statuses).toEqual(Array(wedgedRequests).fill(200));
    // One claim per scope at most (the account's, and the tenant's if its blocks ran out), not one per request.
    const scopes = claims.slice(before).map((c) => (c as { scope: string }).scope);
    expect([scopes.includes(`account:${first.accountId}`), scopes.length <= 3, new Set(scopes).size]).toEqual([
      true,
      true,
      scopes.length,
    ]);
    const answered = () => lines.some((l) => l.includes(answeredAgain));
    for (let i = 0; i < 120 && !answered(); i++) await Bun.sleep(50);
    expect(answered()).toBe(true);
    // By claims again: the second account's limit holds exactly.
    const byStatus: Record<number, number> = {};
    for (let i = 0; i < 3 * limit; i++) {
      const { status } = await get(second);
      byStatus[status] = (byStatus[status] ?? 0) + 1;
    }
    expect(byStatus).toEqual({ 200: limit, 429: 2 * limit });
  } finally {
    letGo();
    d.bus.request = request;
    await d.stop();
  }
});
