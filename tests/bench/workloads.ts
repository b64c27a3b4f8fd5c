import { adminToken } from "../helpers/deployments.ts";
import { gameSave } from "./game-save.ts";

/**
 * The requests the bench sends, as a game sends them (issue 30): each client is a player with its own
 * account and slot, and each save is that player's next one (`game-save.ts`: it changes every write and
 * stays the row's size). `identical` sends one save again and again, the case the server short-cuts (an
 * identical snapshot is not stored again), measured as a row of its own. The same code loads the current
 * server and a baseline's (BENCH_BASELINE): only the API of the routes is assumed.
 */
export type Worker = () => Promise<() => Promise<boolean>>;

const json = (key: string, session?: string) => ({
  authorization: `Bearer ${key}`,
  "content-type": "application/json",
  ...(session ? { "x-service-account-session": session } : {}),
});

/** A tenant's runtime key; `sessionRequestsPerMinute` is set far out of the way unless a row measures it. */
export async function tenant(base: string, sessionRequestsPerMinute = 1_000_000_000): Promise<string> {
  // A failed set-up step stops the run naming it: every measurement after it would be of errors.
  const admin = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers: json(adminToken), body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`bench set-up: ${method} ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as any;
  };
  const ws = await admin("POST", "/admin/v1/workspaces", { name: "bench", plan: "self_hosted" });
  const project = await admin("POST", `/admin/v1/workspaces/${ws.workspaceId}/projects`, { name: "bench" });
  // Load clients are sessions far busier than any device (and the slot-sync setup creates accounts from one address).
  const rateLimits = { sessionRequestsPerMinute, accountCreationsPerIpPerMinute: 1_000_000 };
  await admin("PUT", `/admin/v1/projects/${project.projectId}/settings`, { rateLimits });
  return (await admin("POST", `/admin/v1/projects/${project.projectId}/environments/stage/runtime-keys`, {}))
    .runtimeKey;
}

/** A new account whose first slot holds `data`; its session's headers and the slot's path. */
async function player(base: string, key: string, slotId: string, data: object) {
  const res = await fetch(`${base}/api/v1/accounts`, {
    method: "POST",
    headers: json(key),
    body: JSON.stringify({ slot: { slotId, data } }),
  });
  if (res.status !== 201) throw new Error(`bench set-up: account creation answered ${res.status}: ${await res.text()}`);
  const created = (await res.json()) as { accountId: string; accountSessionToken: string };
  return {
    slot: `${base}/api/v1/accounts/${created.accountId}/slots/${slotId}`,
    headers: json(key, created.accountSessionToken),
  };
}

export interface SyncOptions {
  /** Every n-th write is from a stale base (1: every one, a conflict whose 409 carries the server's save). */
  staleEvery?: number;
  /** The same save every write: what the server does not store again. */
  identical?: boolean;
}

/** A worker per client, each a player saving `bytes` of game state to its own slot. */
export function syncs(base: string, key: string, bytes: number, options: SyncOptions = {}): Worker {
  const { staleEvery = 0, identical = false } = options;
  let made = 0;
  return async () => {
    const n = ++made;
    const game = gameSave(bytes, n);
    const { slot, headers } = await player(base, key, `s${n}`, game.save);
    const url = `${slot}/sync`;
    let version = 1;
    let i = 0;
    return async () => {
      const stale = staleEvery > 0 && ++i % staleEvery === 0;
      // A base ahead of the server's version is as stale as one behind it: 409 with the server's state.
      const res = await fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify({
          baseVersion: stale ? version + 1_000_000 : version,
          data: identical ? game.save : game.next(),
        }),
      });
      const answer = (await res.json()) as { version?: number };
      if (res.status === 200) version = answer.version!;
      return res.status === 200 || (stale && res.status === 409);
    };
  };
}

/** Every write from a stale base: each answer is the 409 with the server's save. */
export const conflicts = (base: string, key: string, bytes: number) => syncs(base, key, bytes, { staleEvery: 1 });

/** Every `staleEvery`-th write of a client is a stale one; only the accepted ones are counted. */
export function countAccepted(base: string, key: string, bytes: number, staleEvery: number, accepted: { n: number }) {
  const make = syncs(base, key, bytes);
  const makeStale = conflicts(base, key, bytes);
  return async () => {
    const send = await make();
    let i = 0;
    const staleSend = await makeStale();
    return async () => {
      if (staleEvery > 0 && ++i % staleEvery === 0) return staleSend();
      const ok = await send();
      if (ok) accepted.n++;
      return ok;
    };
  };
}

/** A player loading its slot of `bytes` of game state, as a game does at start. */
export function reads(base: string, key: string, bytes: number): Worker {
  let made = 0;
  return async () => {
    const { slot, headers } = await player(base, key, "r", gameSave(bytes, ++made).save);
    return async () => {
      const res = await fetch(slot, { headers });
      await res.arrayBuffer();
      return res.status === 200;
    };
  };
}

// New players come from many addresses: each registration names its own client (the server trusts
// the loopback proxy), so the per-IP limit counts as it would in production.
let clientIp = 0;
export const registers =
  (base: string, key: string): Worker =>
  async () =>
  async () => {
    const n = ++clientIp;
    const headers = { ...json(key), "x-forwarded-for": `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` };
    return (await fetch(`${base}/api/v1/accounts`, { method: "POST", headers, body: "{}" })).status === 201;
  };

/** The bare Bun.serve floor (`baseline.ts`) sent the same saves. */
export function bare(base: string, bytes: number): Worker {
  let made = 0;
  return async () => {
    const game = gameSave(bytes, ++made);
    return async () =>
      (
        await fetch(`${base}/`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ baseVersion: 1, data: game.next() }),
        })
      ).ok;
  };
}
