import type { Transport } from "../shared/contract/admin-client.ts";
import { cliActor } from "./actor.ts";

/** The call never got an HTTP answer (server down, wrong URL, no answer in time): exit code 1. */
export class UnreachableError extends Error {}

const timeoutMs = 30_000;

/** The admin client's transport over HTTP. Only transport failures throw; an error answer is an answer. */
export function httpTransport(base: string, token: string): Transport {
  return async ({ method, path, body }) => {
    let res: Response;
    try {
      res = await fetch(`${base.replace(/\/+$/, "")}${path}`, {
        method,
        // The audit log names who made each change (docs/console.md).
        headers: {
          authorization: `Bearer ${token}`,
          "x-savepoint-actor": cliActor(),
          ...(body ? { "content-type": "application/json" } : {}),
        },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      if ((err as Error).name === "TimeoutError")
        throw new UnreachableError(`no answer from ${base} within ${timeoutMs / 1000} s`);
      // Bun's own message is a multi-line dump naming ECONNREFUSED or ConnectionRefused: say what to do instead.
      throw new UnreachableError(`cannot reach ${base}: is the server running? set SAVEPOINT_URL`);
    }
    return { status: res.status, text: await res.text() };
  };
}
