import type { z } from "zod";
import type { Bus, RequestMeta } from "../bus/port.ts";
import type { Endpoint } from "../contract/internal.ts";
import type { Route, RouteMessage } from "../contract/route.ts";
import type { Idempotency, IdempotencyRecordId, ReplayForm } from "../serving/idempotency.ts";
import { serveEndpoint, serveIdempotentRoute, serveRoute } from "../serving/serve.ts";

/**
 * One endpoint a service serves, as data: the route of the route table (or the internal endpoint) it
 * answers, its subject, and whether an Idempotency-Key applies. The service's start serves every entry
 * of its list; tests/unit/registry.test.ts reads the lists without starting anything, to check that
 * each route of the route table has exactly one.
 */
export interface ServedEndpoint<D = never> {
  readonly subject: string;
  /** The route of the route table it answers; none for an internal endpoint. */
  readonly route?: Route;
  /** Its answers are kept for retries with the same Idempotency-Key (shared/serving/idempotency.ts). */
  readonly idempotent?: true;
  serve(bus: Bus, group: string, deps: D): void;
}

const subjectOf = (r: Route) => {
  if (!r.subject) throw new Error(`${r.operationId} has no subject`);
  return r.subject;
};

type RouteHandler<D, R extends Route> = (deps: D, msg: RouteMessage<R>, meta: RequestMeta) => Promise<unknown>;
type IdempotentHandler<D, R extends Route> = (
  deps: D,
  msg: RouteMessage<R>,
  key: IdempotencyRecordId,
) => Promise<unknown>;
type EndpointHandler<D, E> =
  E extends Endpoint<infer Req, infer Res>
    ? (deps: D, input: z.infer<Req>, meta: RequestMeta) => Promise<z.infer<Res>>
    : never;

/**
 * The builders of a service's endpoint list, typed by its deps, which each handler receives first. The
 * plural ones take a table's entries by name: `routesOf(contractRoutes, { getSlot })` serves the route
 * `getSlot` with the verb of that name.
 */
export function endpointsFor<D>() {
  const route = <R extends Route>(r: R, handle: RouteHandler<D, R>): ServedEndpoint<D> => ({
    subject: subjectOf(r),
    route: r,
    serve: (bus, group, deps) => serveRoute(bus, group, r, (msg, meta) => handle(deps, msg, meta)),
  });
  /** A POST of the runtime API; `form` says how a kept answer is rebuilt for a replay (idempotency.ts). */
  const idempotentRoute = <R extends Route>(
    r: R,
    handle: IdempotentHandler<D, R>,
    form?: (deps: D) => ReplayForm<RouteMessage<R>>,
  ): ServedEndpoint<D> => ({
    subject: subjectOf(r),
    route: r,
    idempotent: true,
    serve: (bus, group, deps) => {
      // Opened by the shared start for every service with an entry like this one (service-module.ts).
      const { idempotency } = deps as { idempotency: Idempotency };
      serveIdempotentRoute(bus, group, r, idempotency, (msg, key) => handle(deps, msg, key), form?.(deps));
    },
  });
  const endpoint = <Req extends z.ZodType, Res extends z.ZodType>(
    e: Endpoint<Req, Res>,
    handle: EndpointHandler<D, Endpoint<Req, Res>>,
  ): ServedEndpoint<D> => ({
    subject: e.subject,
    serve: (bus, group, deps) => serveEndpoint(bus, group, e, (input, meta) => handle(deps, input, meta)),
  });
  // The handlers' types are checked by each builder's signature below; inside, one entry at a time.
  const named =
    (one: (entry: never, handle: never) => ServedEndpoint<D>) =>
    (table: Record<string, unknown>, handlers: Record<string, unknown>) =>
      Object.entries(handlers).map(([name, handle]) => one(table[name] as never, handle as never));
  return {
    route,
    idempotentRoute,
    endpoint,
    routesOf: named(route) as <T extends Record<string, Route>, K extends keyof T>(
      table: T,
      handlers: { [P in K]: RouteHandler<D, T[P]> },
    ) => ServedEndpoint<D>[],
    idempotentRoutesOf: named(idempotentRoute) as <T extends Record<string, Route>, K extends keyof T>(
      table: T,
      handlers: { [P in K]: IdempotentHandler<D, T[P]> },
    ) => ServedEndpoint<D>[],
    endpointsOf: named(endpoint) as <T extends Record<string, Endpoint<z.ZodType, z.ZodType>>, K extends keyof T>(
      table: T,
      handlers: { [P in K]: EndpointHandler<D, T[P]> },
    ) => ServedEndpoint<D>[],
  };
}
