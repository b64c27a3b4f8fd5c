import { afterAll, beforeAll, expect, test } from "bun:test";
import { newAccount, newTenant } from "../helpers/api.ts";
import { startCommandProxy } from "../helpers/command-proxy.ts";
import { type DistributedDeployment, startDistributed } from "../helpers/deployments.ts";
import { mongo } from "../helpers/infra.ts";
import { sized } from "../helpers/payloads.ts";

/**
 * What one request costs FerretDB, counted in commands at a proxy every process of the deployment
 * talks to it through (FerretDB's findAndModify is not atomic, so conditional writes take a lease:
 * shared/store/mongo-lease.ts). Counts, not timings: a round trip saved is one the count shows.
 */

let proxy: Awaited<ReturnType<typeof startCommandProxy>>;
let d: DistributedDeployment;

beforeAll(async () => {
  proxy = await startCommandProxy((await mongo()).url);
  d = await startDistributed({ mongoUrl: proxy.url, copies: { accounts: 1 } });
});
afterAll(async () => {
  await d?.stop();
  proxy?.stop();
});

/** The gateway reports rate-limit usage to billing every 500 ms whatever the requests: not theirs. */
const otherServices = ["usageCounts"];

/** Commands counted across `n` calls of `request`, per call; each call must answer 200. */
async function commandsPer(n: number, request: (i: number) => Promise<{ status: number }>) {
  proxy.take();
  for (let i = 0; i < n; i++) expect((await request(i)).status).toBe(200);
  const { total, byName } = proxy.take(otherServices);
  return { perCall: total / n, byName };
}

test("an accepted 1 KiB slot sync costs at most 5 store commands, 8 when its size changes; a GET of the slot 1", async () => {
  // Growth snapshots every 300 s: the syncs after the first record no restore point, as most do.
  const tenant = await newTenant(d, "growth");
  // Same size, new content each time (one digit).
  const data = (i: number, bytes = 1024) => ({ ...sized(bytes), n: i % 10 });
  const acc = await newAccount(d, tenant.key, { slot: { slotId: "s", data: data(0) } });
  const sync = (version: number, bytes?: number) =>
    acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", {
      body: { baseVersion: version, data: data(version, bytes) },
    });
  // The first sync may record a restore point and start the account's count: steady state after it.
  await sync(1);
  const syncs = await commandsPer(5, (i) => sync(2 + i));
  const resized = await commandsPer(5, (i) => sync(7 + i, 1100 + 10 * i));
  const gets = await commandsPer(5, () => acc.call("GET", "/api/v1/accounts/{acc}/slots/s"));
  const line = (what: string, c: { perCall: number; byName: object }) =>
    `${what} ${c.perCall} ${JSON.stringify(c.byName)}`;
  console.log(`store commands per: ${line("sync", syncs)}; ${line("resizing sync", resized)}; ${line("GET", gets)}`);
  // A proxy that stopped seeing commands (a compressed wire, say) must fail, not pass at 0.
  expect(syncs.byName).toHaveProperty("findAndModify slots");
  expect(syncs.perCall).toBeLessThanOrEqual(5);
  expect(resized.perCall).toBeLessThanOrEqual(8);
  expect(gets.perCall).toBe(1);
}, 120_000);

test("a sync that stores a restore point and trims the plan's oldest costs at most 8 store commands", async () => {
  // Self-hosted keeps 100 points a slot, one every sync: from the 100th, each sync trims one.
  const tenant = await newTenant(d, "self_hosted");
  const data = (i: number) => ({ ...sized(1024), n: i % 10 });
  const acc = await newAccount(d, tenant.key, { slot: { slotId: "s", data: data(0) } });
  const sync = (version: number) =>
    acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: version, data: data(version) } });
  for (let v = 1; v <= 101; v++) expect((await sync(v)).status).toBe(200);
  const trimming = await commandsPer(5, (i) => sync(102 + i));
  console.log(`store commands per trimming sync: ${trimming.perCall} ${JSON.stringify(trimming.byName)}`);
  expect(trimming.byName).toHaveProperty("delete snapshots");
  // The slot's read and leased update (3 on FerretDB), the account's read, the trimmed point's read,
  // the new point's insert and the trim's delete, with no lease of its own: a point is written once.
  expect(trimming.perCall).toBeLessThanOrEqual(8);
}, 120_000);
