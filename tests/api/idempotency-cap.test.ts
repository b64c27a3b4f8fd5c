import { expect, test } from "bun:test";
import { admin, type CallOptions, call } from "../helpers/api.ts";
import type { Deployment } from "../helpers/deployments.ts";
import { type AnyDeployment, forEachDeployment } from "../helpers/each-deployment.ts";

/**
 * docs/api-rules.md#idempotent-retries: the daily cap of keyed records is counted per account, or per client address
 * (an IPv6 /64 as one) on the routes without a session, so one client past its cap leaves every other
 * player's retries safe. The cap is 3 here (SAVEPOINT_IDEMPOTENCY_DAILY_CAP).
 */
const keyed = (key: string, o: CallOptions = {}): CallOptions => ({
  ...o,
  headers: { ...o.headers, "idempotency-key": key },
});
const strongKey = () => crypto.randomUUID();
const cap = 3;

/** Times any process of the deployment counted a scope reaching its cap (savepoint_idempotency_cap_reached_total). */
async function capReached(d: AnyDeployment): Promise<number> {
  const ports = (d as AnyDeployment & { processes?: { name: string; metricsPort?: number }[] }).processes
    ?.filter((p) => p.name === "accounts" && p.metricsPort)
    .map((p) => `http://127.0.0.1:${p.metricsPort}`) ?? [d.base];
  let n = 0;
  for (const base of ports) {
    const text = await (await fetch(`${base}/metrics`)).text();
    for (const line of text.split("\n")) {
      if (line.startsWith("savepoint_idempotency_cap_reached_total{") && line.includes('scope="client"'))
        n += Number(line.split(" ").at(-1));
    }
  }
  return n;
}

forEachDeployment(
  "the daily cap of keyed records",
  { env: { SAVEPOINT_IDEMPOTENCY_DAILY_CAP: String(cap) }, distributed: { copies: { gateway: 2 } }, tenant: true },
  ({ setup: s, tenant }) => {
    const create = (via: Deployment, key: string, ip: string, playerRef: string) =>
      call(
        via,
        "POST",
        "/api/v1/accounts",
        keyed(key, { key: tenant.key, body: { playerRef }, headers: { "x-forwarded-for": ip } }),
      );
    const accountsOf = async (playerRef: string) =>
      (
        await admin(
          s.d,
          "GET",
          `/admin/v1/projects/${tenant.projectId}/environments/stage/accounts?playerRef=${playerRef}`,
        )
      ).body.accounts.length;

    test("one client past its cap (its /64) leaves another client's keyed creation recorded: its retry replays the same account", async () => {
      const before = await capReached(s.d);
      // One client, several addresses of one IPv6 /64, through both copies: the cap's 3 records, then one unrecorded.
      for (let i = 0; i < cap; i++)
        expect((await create(i % 2 ? s.other : s.d, strongKey(), `2001:db8:1:2::${i + 1}`, `a-${i}`)).status).toBe(201);
      const pastKey = strongKey();
      const past = `a-past-${crypto.randomUUID()}`;
      expect((await create(s.d, pastKey, "2001:db8:1:2:ffff::9", past)).status).toBe(201);
      const pastAgain = await create(s.other, pastKey, "2001:db8:1:2:ffff::9", past);
      expect(pastAgain.headers.get("idempotent-replayed")).toBeNull();
      expect(await accountsOf(past)).toBe(2);

      // Other clients (another /64, an IPv4 address): recorded, and the retry through the other copy is the same account.
      for (const ip of ["2001:db8:1:3::1", "198.51.100.7"]) {
        const key = strongKey();
        const ref = `b-${crypto.randomUUID()}`;
        const first = await create(s.d, key, ip, ref);
        expect(first.status).toBe(201);
        const again = await create(s.other, key, ip, ref);
        expect(again.status).toBe(201);
        expect(again.headers.get("idempotent-replayed")).toBe("true");
        expect(again.body.accountId).toBe(first.body.accountId);
        expect(await accountsOf(ref)).toBe(1);
      }
      // The operator is told: one scope reached its cap today.
      expect((await capReached(s.d)) - before).toBe(1);
    });
  },
);
