import { expect, test } from "bun:test";
import { admin, newAccount, newTenant } from "../helpers/api.ts";
import { startEmbedded } from "../helpers/deployments.ts";
import { tempDir } from "../helpers/infra.ts";

/**
 * docs/api-rules.md#overview: players active today and since yesterday are UTC days marked on the
 * account by its first session use of the day (or its creation), and new accounts by their creation
 * day. The embedded deployment's clock moves here, a day at a time.
 */
test("players active and new, today and since yesterday, follow the days a session was used", async () => {
  let clock = new Date();
  const d = await startEmbedded({ SAVEPOINT_DATA_DIR: tempDir("overview-days") }, { now: () => clock });
  try {
    const t = await newTenant(d);
    const a = await newAccount(d, t.key);
    await newAccount(d, t.key);
    const players = async () =>
      (await admin(d, "GET", `/admin/v1/projects/${t.projectId}/environments/stage/overview?minutes=1`)).body.players;
    expect(await players()).toEqual({ activeToday: 2, activeSinceYesterday: 2, newToday: 2, newSinceYesterday: 2 });

    clock = new Date(clock.getTime() + 86_400_000);
    expect((await a.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
    expect((await a.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
    expect(await players()).toEqual({ activeToday: 1, activeSinceYesterday: 2, newToday: 0, newSinceYesterday: 2 });

    clock = new Date(clock.getTime() + 86_400_000);
    expect(await players()).toEqual({ activeToday: 0, activeSinceYesterday: 1, newToday: 0, newSinceYesterday: 0 });
  } finally {
    await d.stop();
  }
});
