import { expect, test } from "bun:test";
import { join } from "node:path";
import { defaultPlans } from "../../shared/contract/plans.ts";
import { type Answer, admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { awayFromWindowEnd } from "../helpers/clock.ts";
import { type Deployment, startDistributed } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { tempDir } from "../helpers/infra.ts";

/**
 * docs/plans-and-limits.md: a limit admits exactly its number of requests a minute through any number of gateway
 * copies, however the requests alternate between them, because a copy admits only from units it has
 * claimed in billing's store. `starter` allows 5 requests a minute in stage here (bursting to 10).
 */
const catalog = { ...defaultPlans, starter: { ...defaultPlans.starter, perMinute: { prod: 3000, stage: 5 } } };
const plans = join(tempDir("plans-copies"), "plans.json");
await Bun.write(plans, JSON.stringify(catalog));

const limit = 10;
const concurrency = 3;

/** Sends `3 * limit` requests, request i through copy i % 2, `concurrency` at a time; answers the statuses counted. */
async function alternate(
  copies: Deployment[],
  send: (via: Deployment) => Promise<Answer>,
): Promise<Record<number, number>> {
  const byStatus: Record<number, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < 3 * limit; i = next++) {
        const { status } = await send(copies[i % copies.length]!);
        byStatus[status] = (byStatus[status] ?? 0) + 1;
      }
    }),
  );
  return byStatus;
}

forEachDeployment(
  "limits through two gateway copies",
  { env: { SAVEPOINT_PLANS: plans }, distributed: { copies: { gateway: 2 } } },
  ({ setup: s }) => {
    test(`an account's ${limit} requests a minute: ${3 * limit} requests alternating copies, ${concurrency} at once, admit exactly ${limit}`, async () => {
      const t = await newTenant(s.d);
      await admin(s.d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, {
        rateLimits: { sessionRequestsPerMinute: limit },
      });
      const acc = await newAccount(s.d, t.key);
      await awayFromWindowEnd(60, 20);
      const byStatus = await alternate([s.d, s.other], (via) =>
        call(via, "GET", `/api/v1/accounts/${acc.accountId}`, { key: t.key, session: acc.session }),
      );
      expect(byStatus).toEqual({ 200: limit, 429: 2 * limit });
    });

    test(`an environment's plan of 5 a minute (a burst of ${limit}): ${3 * limit} requests alternating between copies admit exactly ${limit}`, async () => {
      const t = await newTenant(s.d, "starter");
      await awayFromWindowEnd(60, 20);
      const byStatus = await alternate([s.d, s.other], (via) =>
        call(via, "GET", "/api/v1/runtime-config", { key: t.key }),
      );
      expect(byStatus).toEqual({ 200: limit, 429: 2 * limit });
    });
  },
);

test("billing out of reach (distributed): each gateway copy still admits, counting on its own up to the limit", async () => {
  const d = await startDistributed({ copies: { gateway: 2 } });
  try {
    const t = await newTenant(d);
    await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, {
      rateLimits: { sessionRequestsPerMinute: 3 },
    });
    const acc = await newAccount(d, t.key);
    await awayFromWindowEnd(60, 20);
    for (const billing of d.byName.billing) {
      billing.kill();
      await billing.exited;
    }
    for (const base of d.bases) {
      const via: Deployment = { ...d, request: (path, init) => fetch(`${base}${path}`, init) };
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push(
          (await call(via, "GET", `/api/v1/accounts/${acc.accountId}`, { key: t.key, session: acc.session })).status,
        );
      expect(statuses).toEqual([200, 200, 200, 429]);
    }
    // And says so, in each copy's log.
    const gateways = d.processes.filter((p) => p.name === "gateway");
    for (const p of gateways)
      expect(await Bun.file(p.log).text()).toContain("usage claims unavailable; counting locally");
  } finally {
    await d.stop();
  }
});
