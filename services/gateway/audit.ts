import type { z } from "zod";
import type { Bus } from "../../shared/bus/port.ts";
import { isAppError } from "../../shared/contract/errors.ts";
import { internal } from "../../shared/contract/internal.ts";
import type { Route } from "../../shared/contract/route.ts";
import { adminRoutes } from "../../shared/contract/routes.ts";
import type { ClientInfo } from "../../shared/contract/tenant.ts";
import type { Logger } from "../../shared/observe/log.ts";
import { callEndpoint, callRoute } from "../../shared/serving/call.ts";
import type { Reply } from "../../shared/serving/reply.ts";
import { validate } from "./validate.ts";

export const actorHeader = "x-savepoint-actor";
/** Room in a bus message for an entry's other fields, beside its two values. */
const entryOverheadBytes = 16_384;

const readsById = new Map<string, Route>(Object.values(adminRoutes).map((r) => [r.operationId, r]));
const keysOf = (schema: z.ZodType) =>
  Object.keys((schema as unknown as { shape?: Record<string, unknown> }).shape ?? {});

/**
 * Who made a change with the bootstrap admin token: the X-Savepoint-Actor the CLI and console send, else
 * "admin-api". A named operator is named by the gateway instead (`operator:<id> (<name>)`, app.ts).
 */
export function actorOf(headers: Headers): string {
  const named = headers.get(actorHeader)?.trim() ?? "";
  return /^[\x20-\x7e]{1,100}$/.test(named) ? named : "admin-api";
}

const sizeOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value ?? null));

/**
 * Both values are kept whole (a value cut short once read as "No differences"). Only a pair that cannot
 * fit one bus message is cut, larger first, and marked `clipped`, so the console says it could not
 * keep it rather than showing no change.
 */
function fit(before: unknown, after: unknown, maxPayload: number): { before: unknown; after: unknown } {
  const room = maxPayload - entryOverheadBytes;
  const [b, a] = [sizeOf(before), sizeOf(after)];
  if (b + a <= room) return { before, after };
  const clipped = (sizeBytes: number) => ({ clipped: true, sizeBytes });
  if (b >= a) return a <= room / 2 ? { before: clipped(b), after } : { before: clipped(b), after: clipped(a) };
  return b <= room / 2 ? { before, after: clipped(a) } : { before: clipped(b), after: clipped(a) };
}

/**
 * The audit log's one mechanism (docs/console.md): around every admin write the gateway reads the
 * write's target with the admin GET its route names (`auditRead`), before and after, and records who,
 * when, what and both values through config's endpoint. No handler records anything itself.
 */
export function createAudit(bus: Bus, log: Logger, timeoutMs?: number) {
  async function read(reader: Route | undefined, client: ClientInfo, ids: Record<string, unknown>): Promise<unknown> {
    if (!reader?.subject) return undefined;
    const params = Object.fromEntries(keysOf(reader.params).map((k) => [k, ids[k]]));
    // A creation's target has no id before the write: there is nothing to read yet.
    if (Object.values(params).some((v) => v === undefined)) return null;
    try {
      const message = {
        client,
        params: validate(reader.params, params, "path"),
        query: validate(reader.query, {}, "query"),
      };
      return await callRoute(bus, reader.subject, message, { timeoutMs });
    } catch (err) {
      // Nothing there yet (a creation) or gone (a deletion) is null; anything else is logged too.
      const gone = isAppError(err) && err.code === "not_found";
      if (!gone) log.warn("audit read failed", { err, route: reader.operationId });
      return null;
    }
  }

  type Send = () => Promise<Reply>;
  const record = (entry: z.infer<typeof internal.recordAudit.request>) =>
    // The change is made: a log that failed to record it is reported, not turned into a failed answer.
    callEndpoint(bus, internal.recordAudit, entry, { timeoutMs }).catch((err) =>
      log.error("audit entry not recorded", { err, action: entry.action, target: entry.target }),
    );
  const actor = (client: ClientInfo, request: Request) => client.actor ?? actorOf(request.headers);

  /** A read of a player's personal data (an export): who read whose, never what was read. */
  async function access(
    r: Route,
    request: Request,
    client: ClientInfo,
    params: Record<string, unknown>,
    send: Send,
  ): Promise<Reply> {
    const reply = await send();
    if (reply.kind === "error") return reply;
    const targets = Object.fromEntries(
      Object.entries(params).filter((e): e is [string, string] => typeof e[1] === "string"),
    );
    const target = targets.accountId ?? Object.values(targets)[0] ?? "";
    const path = new URL(request.url).pathname;
    await record({
      actor: actor(client, request),
      action: r.operationId,
      method: r.method,
      path,
      target,
      targets,
      status: r.ok[0],
      before: null,
      after: null,
    });
    return reply;
  }

  async function around(
    r: Route,
    request: Request,
    client: ClientInfo,
    params: Record<string, unknown>,
    send: Send,
    body?: unknown,
  ): Promise<Reply> {
    const reader = r.auditRead ? readsById.get(r.auditRead) : undefined;
    const before = await read(reader, client, params);
    const reply = await send();
    // A failed write, or a stale edit's 409, changed nothing: there is nothing to record.
    if (reply.kind === "error" || reply.kind === "conflict") return reply;
    const answer = reply.value;
    const answered = answer && typeof answer === "object" ? (answer as Record<string, unknown>) : {};
    const ids: Record<string, string> = {};
    for (const [k, v] of [...Object.entries(answered), ...Object.entries(params)]) {
      if (typeof v === "string" && (k.endsWith("Id") || k === "env")) ids[k] = v;
    }
    const after = reader ? await read(reader, client, { ...answered, ...params }) : answer;
    // The record acted on: the path's first id, or for a creation the new id in the answer.
    const pathId = keysOf(r.params).find((k) => k.endsWith("Id"));
    const target = (pathId ? ids[pathId] : Object.values(ids)[0]) ?? "";
    const path = new URL(request.url).pathname;
    const who = { actor: actor(client, request), action: r.operationId, method: r.method, path };
    // A route that takes a reason (an edit of a player's data) keeps it with the change.
    const reason = (body as { reason?: unknown } | undefined)?.reason;
    const why = typeof reason === "string" ? { reason } : {};
    await record({ ...who, target, targets: ids, status: r.ok[0], ...fit(before, after, bus.maxPayload), ...why });
    return reply;
  }

  return { around, access, record };
}
