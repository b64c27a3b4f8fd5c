import { expect, test } from "bun:test";
import { type Answer, admin, call, newAccount, newTenant } from "../helpers/api.ts";
import type { Deployment } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

/**
 * docs/api-rules.md#overview: the dashboard's counts are every gateway copy's, flushed to one store. A
 * known workload goes through two gateway copies (distributed), alternating, and the overview counts it
 * exactly once the copies have flushed (every 200 ms here).
 */
const overviewOf = (d: Deployment, projectId: string, q = "?minutes=5") =>
  admin(d, "GET", `/admin/v1/projects/${projectId}/environments/stage/overview${q}`);

/** Asks until the counted requests reach `requests` (the flush is periodic), then answers the overview. */
async function settled(d: Deployment, projectId: string, requests: number): Promise<Answer> {
  for (let i = 0; ; i++) {
    const o = await overviewOf(d, projectId);
    if (o.status !== 200 || o.body.totals.requests >= requests || i === 100) return o;
    await Bun.sleep(100);
  }
}

forEachDeployment(
  "overview",
  { env: { SAVEPOINT_TRAFFIC_FLUSH_MS: "200" }, distributed: { copies: { gateway: 2 } }, timeoutMs: 120_000 },
  ({ setup: s }) => {
    test("syncs, conflicts and 4xx sent through two gateway copies are counted exactly, with p50/p99", async () => {
      const t = await newTenant(s.d);
      const copies = [s.d, s.other];
      const acc = await newAccount(s.d, t.key);
      const via = (i: number, method: string, path: string, body?: unknown) =>
        call(copies[i % 2]!, method, path.replace("{acc}", acc.accountId), { key: t.key, session: acc.session, body });
      const N = 6;
      const C = 3;
      const E = 4;
      const sync = (i: number, baseVersion: number, accountData: object) =>
        via(i, "POST", "/api/v1/accounts/{acc}/data/sync", { baseVersion, accountData });
      for (let i = 0; i < N; i++) expect((await sync(i, i + 1, { n: i })).status).toBe(200);
      for (let i = 0; i < C; i++) expect((await sync(i, 1, { stale: i })).status).toBe(409);
      for (let i = 0; i < E; i++)
        expect((await via(i, "GET", "/api/v1/accounts/{acc}/slots/missing")).status).toBe(404);

      // The account's creation, N + C syncs, E reads of a missing slot.
      const o = await settled(s.d, t.projectId, 1 + N + C + E);
      expect(o.status).toBe(200);
      const { p50Ms, p99Ms, ...counts } = o.body.totals;
      expect(counts).toEqual({
        requests: 1 + N + C + E,
        syncs: N + C,
        conflicts: C,
        clientErrors: C + E,
        serverErrors: 0,
      });
      expect(p50Ms).toBeGreaterThan(0);
      expect(p99Ms).toBeGreaterThanOrEqual(p50Ms);
      expect(o.body.minutes).toHaveLength(5);
      expect(o.body.minutes.reduce((n: number, m: { syncs: number }) => n + m.syncs, 0)).toBe(N + C);
      expect(o.body.players).toEqual({ activeToday: 1, activeSinceYesterday: 1, newToday: 1, newSinceYesterday: 1 });
      expect(o.body.plan.name).toBe("self_hosted");
      // Another environment of the same project saw none of it.
      const prod = await admin(s.d, "GET", `/admin/v1/projects/${t.projectId}/environments/prod/overview`);
      expect(prod.body.totals.requests).toBe(0);
    });

    test("the largest accounts, in order, with their bytes (history included) as the account page counts them", async () => {
      const t = await newTenant(s.d);
      const sizes = [2_000, 30_000, 9_000];
      const ids: string[] = [];
      for (const size of sizes) {
        const acc = await newAccount(s.d, t.key, { accountData: { blob: "x".repeat(size) } });
        // A second version: its restore point is history the account stores too.
        const second = await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", {
          body: { baseVersion: 1, accountData: { blob: "y".repeat(size) } },
        });
        expect(second.status).toBe(200);
        ids.push(acc.accountId);
      }
      const o = await overviewOf(s.d, t.projectId);
      expect(o.status).toBe(200);
      const byBytes = [ids[1], ids[2], ids[0]];
      expect(o.body.largestAccounts.map((a: { accountId: string }) => a.accountId)).toEqual(byBytes);
      for (const [i, a] of o.body.largestAccounts.entries()) {
        const page = await admin(s.d, "GET", `/admin/v1/accounts/${byBytes[i]}`);
        expect(a.storedBytes).toBe(page.body.storage.storedBytes);
        expect(a.storedBytes).toBeGreaterThan(2 * sizes[[1, 2, 0][i]!]!);
        expect(a.currentBytes).toBeLessThan(a.storedBytes);
      }
      expect(o.body.plan.accountBytes.used).toBe(o.body.largestAccounts[0].storedBytes);
      expect(o.body.deadLetters).toBe((await admin(s.d, "GET", "/admin/v1/dead-letters")).body.deadLetters.length);
    });

    test("bad input is a 400 in the envelope; an unknown project is 404", async () => {
      const t = await newTenant(s.d);
      for (const q of ["?minutes=0", "?minutes=1441", "?minutes=x", "?other=1"]) {
        const bad = await overviewOf(s.d, t.projectId, q);
        expect(bad.status).toBe(400);
        expect(bad.body.error.code).toBe("invalid_request");
      }
      expect((await overviewOf(s.d, "prj_unknown")).status).toBe(404);
    });
  },
);
