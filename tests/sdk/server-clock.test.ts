import { beforeAll, expect, test } from "bun:test";
import { type Clock, mergeRules, SavepointApi, systemClock } from "../../sdk/src/index.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { type AnyServer, tenantWithPolicy, testClient } from "./helpers.ts";

let d: AnyServer;

const day = 24 * 3600 * 1000;
/** A device whose clock is set `skewMs` away from the true time (it still ticks in real time). */
const skewed = (skewMs: number): Clock => ({ ...systemClock, now: () => Date.now() + skewMs });

// `latest` compares the device's save time with the server's updatedAt on the server's clock (sdk/README.md, Conflicts).
forEachDeployment("sdk: the server's clock, not the device's", ({ d: deployed }) => {
  beforeAll(() => {
    d = deployed;
  });
  for (const [skew, name] of [
    [day, "a day ahead"],
    [-day, "a day behind"],
  ] as const) {
    test(`a device ${name} neither wins nor loses every latest merge`, async () => {
      const t = await tenantWithPolicy(d, { minRemoteSyncIntervalSeconds: 3600, forceSyncCooldownSeconds: 1 });
      const { client } = testClient(d, t.key, { clock: skewed(skew), resolve: mergeRules({ settings: "latest" }) });
      const accountId = await client.ensureAccount();
      await client.save("main", { settings: { music: "first" } });
      expect((await client.sync({ force: true })).status).toBe("synced");
      // The device's estimate of the server's time is within a second and a half of the truth, whatever its clock says.
      expect(Math.abs(client.serverTime() - Date.now())).toBeLessThan(1_500);

      const token = (await client.store.getValue<{ token: string }>("session"))!.token;
      const other = new SavepointApi({
        baseUrl: d.base,
        runtimeKey: t.key,
        clock: systemClock,
        retry: { attempts: 1 },
        session: () => ({ accountId, token }),
      });
      // Ahead: this device saves first and the other device writes later, so the other's setting is the latest.
      // Behind: the other device writes first and this device saves later, so this device's setting is.
      const otherWrites = () =>
        other.syncSlot("main", { baseVersion: 1, data: { settings: { music: "other device" } } });
      if (skew > 0) await client.save("main", { settings: { music: "this device" } });
      else await otherWrites();
      // Longer than the estimate may be off (1.5 s, checked above): which came first is not in doubt, even under load.
      await Bun.sleep(1_600);
      if (skew > 0) await otherWrites();
      else await client.save("main", { settings: { music: "this device" } });

      const r = await client.sync({ force: true });
      expect(r.status).toBe("synced");
      const latest = skew > 0 ? "other device" : "this device";
      expect((await other.getSlot("main")).data).toEqual({ settings: { music: latest } });
      client.close();
    });
  }
});
