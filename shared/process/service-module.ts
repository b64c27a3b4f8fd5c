import type { Bus } from "../bus/port.ts";
import type { PlanCatalog } from "../contract/plans.ts";
import type { Logger } from "../observe/log.ts";
import { type Idempotency, openIdempotency } from "../serving/idempotency.ts";
import type { Store } from "../store/port.ts";
import type { Env } from "./env.ts";
import type { ServedEndpoint } from "./service-endpoints.ts";

/** What every bus service starts from: read from the environment once, by whichever process starts it. */
export interface ServiceContext {
  bus: Bus;
  /** The service's own store (its name picks the SQLite file). */
  store: Store;
  env: Env;
  /** The plan catalog (SAVEPOINT_PLANS). */
  plans: PlanCatalog;
  /** Already scoped to the service. */
  log: Logger;
  /** The services' clock: tests move it. */
  now: () => Date;
}

/**
 * What every service's deps (services/<name>/deps.ts) extend, built from the context by the shared
 * start: the parts every verb may use. `now` is injectable so tests can move time.
 */
export interface ServiceDeps {
  bus: Bus;
  log: Logger;
  now: () => Date;
  /** The plan catalog: plans' limits and what restore points each keeps. */
  plans: PlanCatalog;
}

/** The deps of a service that serves an idempotent route: the shared start opens its records once. */
export interface IdempotentServiceDeps extends ServiceDeps {
  /** Records of Idempotency-Key requests: retries get the first answer (SAVEPOINT_IDEMPOTENCY_DAILY_CAP). */
  idempotency: Idempotency;
}

/** One bus service: its queue group (also its store's name), the endpoints it serves, and how it starts. */
export interface ServiceModule<Name extends string = string, Deps = unknown> {
  name: Name;
  endpoints: readonly ServedEndpoint<Deps>[];
  /** Opens what it needs from `ctx`, serves its endpoints on `ctx.bus`, and returns its deps. */
  start(ctx: ServiceContext): Promise<Deps>;
}

/** What a service opens of its own; it may replace a shared part (config keeps the wall clock). */
type OwnDeps<Deps> = Omit<Deps, keyof IdempotentServiceDeps> & Partial<ServiceDeps>;

export interface ServiceDefinition<Name extends string, Deps extends ServiceDeps> {
  name: Name;
  endpoints: readonly ServedEndpoint<Deps>[];
  /** The deps only this service has (its repo, its settings from `ctx.env`), opened before anything is served. */
  open(ctx: ServiceContext): Promise<OwnDeps<Deps>>;
  /** What runs once its endpoints are served: workers, schedules. */
  started?(deps: Deps): void | Promise<void>;
}

/**
 * A service from its definition. Its start is the same for every service: the shared deps from the
 * context, its own (`open`), the idempotency records if an endpoint takes an Idempotency-Key, then
 * every endpoint served on the service's queue group.
 */
export function defineService<Name extends string, Deps extends ServiceDeps>(
  definition: ServiceDefinition<Name, Deps>,
): ServiceModule<Name, Deps> {
  const { name, endpoints } = definition;
  return {
    name,
    endpoints,
    async start(ctx) {
      const { bus, store, env, plans, log, now } = ctx;
      const own = await definition.open(ctx);
      const idempotent = endpoints.some((e) => e.idempotent);
      const idempotency = idempotent
        ? { idempotency: await openIdempotency(store, log, now, { dailyCap: env.SAVEPOINT_IDEMPOTENCY_DAILY_CAP }) }
        : {};
      const deps = { bus, log, now, plans, ...idempotency, ...own } as unknown as Deps;
      for (const endpoint of endpoints) endpoint.serve(bus, name, deps);
      await definition.started?.(deps);
      return deps;
    },
  };
}

/** The context `name` starts with: the process's logger scoped to the service, as every service logs. */
export function contextFor(name: string, parts: ServiceContext): ServiceContext {
  return { ...parts, log: parts.log.child({ service: name }) };
}
