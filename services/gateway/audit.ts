import type { z } from "zod";
import type { Bus } from "../../shared/bus/port.ts";
import { callEndpoint, callRoute } from "../../shared/serving/call.ts";
import type { Reply } from "../../shared/serving/reply.ts";
import { isAppError } from "../../shared/contract/errors.ts";
import { internal } from "../../shared/contract/internal.ts";
import type { ClientInfo } from "../../shared/contract/tenant.ts";
import type { Route } from "../../shared/contract/route.ts";
import { adminRoutes } from "../../shared/contract/routes.ts";
import type { Logger } from "../../shared/process/log.ts";
import { validate } from "./validate.ts";

export const actorHeader = "x-savepoint-actor";
/** What a value in the log may weigh: a larger one is recorded by its size only. */
const maxValueBytes = 65_536;

const readsById = new Map<string, Route>(Object.values(adminRoutes).map((r) => [r.operationId, r]));
const keysOf = (schema: z.ZodType) => Object.keys((schema as unknown as { shape?: Record<string, unknown> }).shape ?? {});

/** Who made a change: the X-Savepoint-Actor the CLI and console send, else "admin-api". */
export function actorOf(headers: Headers): string {
  const named = headers.get(actorHeader)?.trim() ?? "";
  return /^[\x20-\x7e]{1,100}$/.test(named) ? named : "admin-api";
}

function clip(value: unknown): unknown {
  const text = JSON.stringify(value ?? null);
  return Buffer.byteLength(text) > maxValueBytes ? { clipped: true, sizeBytes: Buffer.byteLength(text) } : value;
}

/**
 * The audit log's one mechanism (README, Console): around every admin write the gateway reads the
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
      const message = { client, params: validate(reader.params, params, "path"), query: validate(reader.query, {}, "query") };
      return await callRoute(bus, reader.subject, message, { timeoutMs });
    } catch (err) {
      // Nothing there yet (a creation) or gone (a deletion) is null; anything else is logged too.
      const gone = isAppError(err) && err.code === "not_found";
      if (!gone) log.warn("audit read failed", { err, route: reader.operationId });
      return null;
    }
  }

  type Send = () => Promise<Reply>;
  return async function around(r: Route, request: Request, client: ClientInfo, params: Record<string, unknown>, send: Send, body?: unknown): Promise<Reply> {
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
    const who = { actor: actorOf(request.headers), action: r.operationId, method: r.method, path };
    // A route that takes a reason (an edit of a player's data) keeps it with the change.
    const reason = (body as { reason?: unknown } | undefined)?.reason;
    const why = typeof reason === "string" ? { reason } : {};
    const entry = { ...who, target, targets: ids, status: r.ok[0], before: clip(before), after: clip(after), ...why };
    // The change is made: a log that failed to record it is reported, not turned into a failed answer.
    await callEndpoint(bus, internal.recordAudit, entry, { timeoutMs }).catch((err) =>
      log.error("audit entry not recorded", { err, action: r.operationId, target }),
    );
    return reply;
  };
}
