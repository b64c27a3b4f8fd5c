import type { z } from "zod";
import type { Bus, RequestMeta } from "../bus/port.ts";
import { fail } from "../contract/errors.ts";
import type { Endpoint } from "../contract/internal.ts";
import { needsTenant, type Route, type RouteMessage, routeMessage } from "../contract/route.ts";
import type { Tenant } from "../contract/tenant.ts";
import { host } from "./host.ts";
import type { Idempotency, IdempotencyRecordId, ReplayForm } from "./idempotency.ts";
import { knownTenantsOf } from "./known-tenants.ts";
import { onWire, replyOf } from "./reply.ts";
import { isVouched } from "./vouched.ts";

function parse<T>(schema: z.ZodType<T>, data: unknown): T {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  throw fail.invalidRequest(result.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
}

/**
 * Serves a route's subject for a service's queue group. Every message is validated with the route's
 * own schemas, whichever adapter brought it: the service trusts no caller, even its own gateway in
 * the same process, except for the very object the gateway built from values it checked with these
 * schemas (vouched.ts), which is not parsed twice. The verb answers a plain value (accepted) or a reply (reply.ts), sent as a reply.
 */
export function serveRoute<R extends Route>(
  bus: Bus,
  group: string,
  r: R,
  handler: (msg: RouteMessage<R>, meta: RequestMeta) => Promise<unknown>,
): void {
  if (!r.subject) throw new Error(`${r.operationId} has no subject`);
  const parseMessage = routeParser(bus, r);
  host(bus, group, r.subject, async (data, meta) => onWire(replyOf(await handler(parseMessage(data), meta))));
}

/**
 * A route's message parser. The gateway names the tenant by `tenantRef` (README, How it is built: the
 * tenant travels by reference): a known one is the tenant validated when it first came in full, and an
 * unknown one is `tenant_unknown` for the gateway to send it in full, after the rest of the message passed.
 */
function routeParser<R extends Route>(bus: Bus, r: R): (data: unknown) => RouteMessage<R> {
  const schema = routeMessage(r);
  const withoutTenant = (schema as unknown as z.ZodObject).omit({ tenant: true });
  const withTenant = needsTenant(r.auth);
  const known = knownTenantsOf(bus);
  return (data) => {
    const checked = bus.inProcess && isVouched(data);
    if (!withTenant) return checked ? (data as RouteMessage<R>) : parse(schema, data);
    const { tenant, tenantRef } = (data ?? {}) as { tenant?: unknown; tenantRef?: unknown };
    if (tenant === undefined && typeof tenantRef === "string") {
      const rest = checked ? (data as object) : parse(withoutTenant, data);
      const found = known.get(tenantRef);
      if (!found) throw fail.tenantUnknown(tenantRef);
      // Copied once: the reference a vouched message holds is left undefined, not cut out in a copy of its own.
      return { ...rest, tenantRef: undefined, tenant: found } as unknown as RouteMessage<R>;
    }
    const message = checked ? (data as RouteMessage<R>) : parse(schema, data);
    return { ...withoutRef(message), tenant: known.add(message.tenant as Tenant) } as RouteMessage<R>;
  };
}

/** The message's own fields, as parsing with the route's schema leaves them (it drops `tenantRef`). */
const withoutRef = <M>(m: M): M => {
  const { tenantRef: _, ...rest } = m as M & { tenantRef?: string };
  return rest as M;
};

export function serveEndpoint<Req extends z.ZodType, Res extends z.ZodType>(
  bus: Bus,
  group: string,
  e: Endpoint<Req, Res>,
  handler: (input: z.infer<Req>, meta: RequestMeta) => Promise<z.infer<Res>>,
): void {
  host(bus, group, e.subject, (data, meta) => handler(parse(e.request as z.ZodType<z.infer<Req>>, data), meta));
}

/**
 * `serveRoute` for a POST of the runtime API: an Idempotency-Key makes retries get the first answer.
 * `form` says how an answer that shows stored state is kept small and rebuilt (idempotency.ts).
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
