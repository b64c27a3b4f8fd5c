import { z } from "zod";
import { fail } from "../contract/errors.ts";
import { type Route, type RouteMessage, routeMessage } from "../contract/route.ts";
import type { Endpoint } from "../contract/internal.ts";
import type { Idempotency, ReplayForm, IdempotencyRecordId } from "../serving/idempotency.ts";
import type { Bus, RequestMeta, RequestOptions } from "./port.ts";

function parse<T>(schema: z.ZodType<T>, data: unknown): T {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  throw fail.invalidRequest(result.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
}

/**
 * Serves a route's subject for a service's queue group. A message from the wire is validated with the
 * route's own schemas: the service does not trust the wire, even from its own gateway. A message from
 * this process is the gateway's own, built from what it validated with the same schemas: once is enough.
 */
export function serveRoute<R extends Route>(
  bus: Bus,
  group: string,
  r: R,
  handler: (msg: RouteMessage<R>, meta: RequestMeta) => Promise<unknown>,
): void {
  if (!r.subject) throw new Error(`${r.operationId} has no subject`);
  const schema = routeMessage(r);
  if (bus.inProcess) bus.serve(group, r.subject, (data, meta) => handler(data as RouteMessage<R>, meta));
  else bus.serve(group, r.subject, (data, meta) => handler(parse(schema, data), meta));
}

export function serveEndpoint<Req extends z.ZodType, Res extends z.ZodType>(
  bus: Bus,
  group: string,
  e: Endpoint<Req, Res>,
  handler: (input: z.infer<Req>, meta: RequestMeta) => Promise<z.infer<Res>>,
): void {
  bus.serve(group, e.subject, (data, meta) => handler(parse(e.request as z.ZodType<z.infer<Req>>, data), meta));
}

/** Calls an endpoint and checks the reply's shape. */
export async function callEndpoint<Req extends z.ZodType, Res extends z.ZodType>(
  bus: Bus,
  e: Endpoint<Req, Res>,
  input: z.infer<Req>,
  options?: RequestOptions,
): Promise<z.infer<Res>> {
  return e.reply.parse(await bus.request(e.subject, input, options));
}

/**
 * `serveRoute` for a POST of the runtime API: an Idempotency-Key makes retries get the first answer.
 * `form` says how an answer that shows stored state is kept small and rebuilt (shared/serving/idempotency.ts).
 */
export function serveIdempotentRoute<R extends Route>(
  bus: Bus,
  group: string,
  r: R,
  idempotency: Idempotency,
  handler: (msg: RouteMessage<R>, key: IdempotencyRecordId) => Promise<unknown>,
  form?: ReplayForm<RouteMessage<R>>,
): void {
  serveRoute(bus, group, r, idempotency.wrap(r.operationId, handler, form));
}
