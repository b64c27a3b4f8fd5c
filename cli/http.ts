import type { Route } from "../shared/contract/route.ts";
import { cliActor } from "./actor.ts";

/** The call never got an HTTP answer (server down, wrong URL, no answer in time): exit code 1. */
export class UnreachableError extends Error {}

export interface Answer {
  status: number;
  ok: boolean;
  /** The body exactly as the server sent it, for `--json`. */
  text: string;
  /** The body parsed, when it is JSON. */
  body?: unknown;
}

const timeoutMs = 30_000;

/** One admin API request. Only transport failures throw; an error answer is an Answer. */
export async function callAdmin(
  base: string,
  token: string,
  route: Route,
  path: string,
  body?: Record<string, unknown>,
): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(`${base.replace(/\/+$/, "")}${path}`, {
      method: route.method,
      // The audit log names who made each change (docs/console.md).
      headers: {
        authorization: `Bearer ${token}`,
        "x-savepoint-actor": cliActor(),
        ...(body ? { "content-type": "application/json" } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    if ((err as Error).name === "TimeoutError")
      throw new UnreachableError(`no answer from ${base} within ${timeoutMs / 1000} s`);
    // Bun's own message is a multi-line dump naming ECONNREFUSED or ConnectionRefused: say what to do instead.
    throw new UnreachableError(`cannot reach ${base}: is the server running? set SAVEPOINT_URL`);
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, ok: res.ok, text, body: parsed };
}
