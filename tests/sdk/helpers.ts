import { buildSdk } from "../../sdk/scripts/build.ts";
import { type ClientOptions, manualClock, memoryStorage, SavepointClient } from "../../sdk/src/index.ts";
import { admin, newTenant } from "../helpers/api.ts";
import type { Deployment, startEmbedded } from "../helpers/deployments.ts";

export type Server = Awaited<ReturnType<typeof startEmbedded>>;
/** Any deployment with a base URL: the embedded one here, or either of `forEachDeployment`'s. */
export type AnyServer = Deployment & { base: string };

/** A fresh tenant on `d` with the given sync policy. */
export async function tenantWithPolicy(d: AnyServer, policy: Record<string, unknown> = {}) {
  const t = await newTenant(d);
  if (Object.keys(policy).length) {
    const set = await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/sync-policy`, policy);
    if (set.status !== 200) throw new Error(`sync policy: ${JSON.stringify(set.body)}`);
  }
  return t;
}

/** A network the test can take away: requests fail as a dropped connection would, the server stays up. */
export function switchableNetwork() {
  const state = { online: true, requests: 0 };
  const fetchFn = (url: string, init: RequestInit) => {
    state.requests++;
    return state.online ? fetch(url, init) : Promise.reject(new TypeError("fetch failed: network is offline"));
  };
  return { state, fetch: fetchFn };
}

/** A client on the test server, with a manual clock, no browser hooks and quick retries. */
export function testClient(d: AnyServer, key: string, o: Partial<ClientOptions> = {}) {
  const clock = o.clock ?? manualClock();
  const client = new SavepointClient({
    baseUrl: d.base,
    runtimeKey: key,
    storage: memoryStorage(),
    clock,
    browserLifecycle: false,
    retry: { attempts: 1 },
    ...o,
  });
  return { client, clock: clock as ReturnType<typeof manualClock> };
}

let built: Promise<unknown> | undefined;
/**
 * `sdk/dist`, built once for every suite that reads it in this test process, or once for the whole run
 * when `npm test` built it before starting its shards (SAVEPOINT_SDK_BUILT, tests/run.ts).
 */
export const builtSdk = () => (built ??= process.env.SAVEPOINT_SDK_BUILT ? Promise.resolve() : buildSdk());
