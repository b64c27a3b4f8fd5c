import { expect, test } from "bun:test";
import { type Answer, call, newAccount } from "../helpers/api.ts";
import type { Deployment } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

/**
 * docs/plans-and-limits.md: a gateway copy holds at most SAVEPOINT_ANSWER_BYTES_IN_FLIGHT bytes of answers at
 * once, and one account at most SAVEPOINT_ACCOUNT_ANSWER_BYTES_IN_FLIGHT of them; both are 1 MiB here,
 * so of reads of a 250 kB slot at most four are in flight at once. The count bound (8 requests of an
 * account in flight) is raised out of the way: the bytes alone refuse here.
 */
const env = { SAVEPOINT_ANSWER_BYTES_IN_FLIGHT: "1048576", SAVEPOINT_ACCOUNT_ANSWER_BYTES_IN_FLIGHT: "1048576" };
const blob = (n: number, tag = "x") => ({ s: tag + "x".repeat(n - 9) });

/** The gateway's gauge of bytes of answers in flight, from its /metrics. */
async function bytesInFlight(d: Deployment): Promise<number> {
  const text = (await call(d, "GET", "/metrics")).body as string;
  const line = text.split("\n").find((l) => l.startsWith("savepoint_gateway_answer_bytes_in_flight "));
  return line === undefined ? Number.NaN : Number(line.split(" ")[1]);
}

const documentedRefusal = (a: Answer) =>
  a.headers.get("retry-after") === "1" &&
  ((a.status === 429 && a.body.error.code === "rate_limited" && a.body.error.details.scope === "account") ||
    (a.status === 503 && a.body.error.code === "service_unavailable"));

const tenantOptions = { rateLimits: { accountConcurrentRequests: 100, sessionRequestsPerMinute: 100_000 } };

forEachDeployment("bytes of answers in flight", { env, tenant: tenantOptions }, ({ name, d, tenant }) => {
  test("30 concurrent reads of 250 kB past the bound: the excess is refused as documented, a small read is served, the gauge is 0 after", async () => {
    const data = blob(250_000, "b");
    const big = await Promise.all([1, 2, 3].map(() => newAccount(d, tenant.key, { slot: { slotId: "big", data } })));
    const small = await newAccount(d, tenant.key, { accountData: { level: 3 } });
    // Each account's first read teaches the gateway how large its answers are.
    for (const acc of big) expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/big")).status).toBe(200);

    const reads = big.flatMap((acc) =>
      Array.from({ length: 10 }, () => acc.call("GET", "/api/v1/accounts/{acc}/slots/big")),
    );
    const [answers, other] = await Promise.all([Promise.all(reads), small.call("GET", "/api/v1/accounts/{acc}")]);

    const served = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    console.log(
      `[bytes in flight] of 30 reads: ${served.length} served, ${refused.length} refused (${refused.map((a) => a.status).join(",")})`,
    );
    // Distributed, every read waits on the bus while the others arrive: past the bounds they are refused
    // at admission. Embedded, a read is answered within the turn it arrived in, so no two are ever in
    // flight together and none is refused; what holds there is that nothing else goes wrong.
    if (name === "distributed") expect(refused.length).toBeGreaterThan(0);
    expect(served.length).toBeGreaterThan(0);
    expect(refused.filter((a) => !documentedRefusal(a))).toEqual([]);
    for (const a of served) expect(a.body.data).toEqual(data);
    expect(other.status).toBe(200);
    expect(other.body.accountData).toEqual({ level: 3 });

    // Every answer written: nothing is held any more.
    const deadline = Date.now() + 10_000;
    while ((await bytesInFlight(d)) !== 0 && Date.now() < deadline) await Bun.sleep(50);
    expect(await bytesInFlight(d)).toBe(0);
    // And a read past the burst is served again.
    expect((await big[0]!.call("GET", "/api/v1/accounts/{acc}/slots/big")).status).toBe(200);
  });
});
