import { beforeAll, expect, test } from "bun:test";
import { createClient, memoryStorage, openClient, SavepointError } from "../../sdk/src/index.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { type AnyServer, tenantWithPolicy } from "./helpers.ts";

let d: AnyServer;

const options = (key: string, storage = memoryStorage()) => ({
  baseUrl: d.base,
  runtimeKey: key,
  storage,
  browserLifecycle: false,
  retry: { attempts: 1 },
});

// The quick start's first lines (sdk/README.md): a game cannot read "no save" before the device's saves are loaded.
forEachDeployment("sdk: starting a client", ({ d: deployed }) => {
  beforeAll(() => {
    d = deployed;
  });
  test("load() before the store is loaded refuses with not_ready instead of answering undefined; openClient() answers a loaded client", async () => {
    const t = await tenantWithPolicy(d, { minRemoteSyncIntervalSeconds: 3600 });
    const storage = memoryStorage();
    const first = createClient(options(t.key, storage));
    await first.ensureAccount();
    await first.save("main", { level: 12 });
    first.close();

    // The next launch: the natural `load("main") ?? freshSave` must not see "no save".
    const next = createClient(options(t.key, storage));
    let refused: unknown;
    try {
      next.load("main");
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(SavepointError);
    expect(refused).toMatchObject({ code: "not_ready", status: 0 });
    expect(() => next.slots()).toThrow(SavepointError);
    expect(() => next.localSnapshots("main")).toThrow(SavepointError);
    await next.start();
    expect(next.load("main")).toEqual({ level: 12 });
    next.close();

    const opened = await openClient(options(t.key, storage));
    expect(opened.load("main")).toEqual({ level: 12 });
    expect(opened.accountId).toBe(first.accountId!);
    opened.close();
  });

  test("the deviceLabel given to createClient names the first device in the player's device list", async () => {
    const t = await tenantWithPolicy(d);
    const client = createClient({ ...options(t.key), deviceLabel: "Ada's phone" });
    await client.ensureAccount();
    const devices = await client.account.devices();
    expect(devices.map((s) => s.deviceLabel)).toEqual(["Ada's phone"]);
    // A label in the body wins over the client's.
    const other = createClient({ ...options(t.key), deviceLabel: "Ada's phone" });
    await other.ensureAccount({ deviceLabel: "Ada's tablet" });
    expect((await other.account.devices()).map((s) => s.deviceLabel)).toEqual(["Ada's tablet"]);
    client.close();
    other.close();
  });
});
