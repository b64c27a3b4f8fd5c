import type { Route } from "../../shared/contract/route.ts";
import { metrics } from "../../shared/observe/metrics.ts";
import { type Reply, unreachable } from "../../shared/serving/reply.ts";
import { sha256Hex } from "../../shared/util/crypto.ts";
import { encodeJson } from "../../shared/util/json-text.ts";
import { jsonHeaders } from "./errors.ts";
import { markErrorCode } from "./request-log.ts";

/** The body of each answer made here, so its bytes can be counted without reading it again (answer-bytes.ts). */
const texts = new WeakMap<Response, string>();
export const textOf = (response: Response) => texts.get(response);
const withText = (text: string, init: ResponseInit) => {
  const response = new Response(text, init);
  texts.set(response, text);
  return response;
};

export const json = (status: number, body: unknown, requestId: string, extra?: Record<string, string>) =>
  withText(encodeJson(body), { status, headers: jsonHeaders(requestId, extra) });

/** 200 with an ETag of the body, or 304 without one when the client already holds that body. */
function withETag(request: Request, body: unknown, requestId: string): Response {
  const text = encodeJson(body);
  const etag = `"${sha256Hex(text).slice(0, 32)}"`;
  const held = (request.headers.get("if-none-match") ?? "").split(",").map((t) => t.trim().replace(/^W\//, ""));
  if (held.includes(etag) || held.includes("*"))
    return new Response(null, { status: 304, headers: { etag, "x-request-id": requestId } });
  return withText(text, { status: 200, headers: jsonHeaders(requestId, { etag, "cache-control": "no-cache" }) });
}

/** A conflict's answer, its code noted for the request log (the services send the envelope's code, else it is `conflict`). */
function conflictResponse(response: Response, value: unknown): Response {
  const code = (value as { error?: { code?: unknown } } | null)?.error?.code;
  markErrorCode(response, typeof code === "string" ? code : "conflict");
  return response;
}

/** Answers that carried a sync conflict, for the dashboard's counts (traffic.ts). */
const conflicts = new WeakSet<Response>();
export const wasConflict = (response: Response) => conflicts.has(response);

const replayedHeader = { "idempotent-replayed": "true" };

/**
 * The one place a route's reply becomes its HTTP answer (docs/api-rules.md#versions-and-conflicts,
 * docs/api-rules.md#idempotent-retries). An error is thrown to the gateway's one error renderer (errors.ts).
 */
export function renderReply(r: Route, reply: Reply, body: unknown, request: Request, requestId: string): Response {
  switch (reply.kind) {
    case "accepted":
      if (r.etag) return withETag(request, reply.value, requestId);
      return json(r.ok[0], r.completeOk ? r.completeOk(reply.value, body) : reply.value, requestId);
    case "replayed":
      return json(r.ok[0], r.completeOk ? r.completeOk(reply.value, body) : reply.value, requestId, replayedHeader);
    case "conflict": {
      metrics.conflicts.inc({ route: r.operationId });
      const response = json(409, r.completeConflict ? r.completeConflict(reply.value, body) : reply.value, requestId);
      conflicts.add(response);
      return conflictResponse(response, reply.value);
    }
    case "error":
      throw reply.error;
    default:
      return unreachable(reply);
  }
}
