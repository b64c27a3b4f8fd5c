import type { Bus } from "../bus/port.ts";
import type { PlanCatalog } from "../contract/plans.ts";
import type { Logger } from "../observe/log.ts";
import type { Store } from "../store/port.ts";
import type { Env } from "./env.ts";

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

/** One bus service: its queue group (also its store's name) and how it opens its deps and serves them. */
export interface ServiceModule<Name extends string = string, Deps = unknown> {
  name: Name;
  /** Opens what it needs from `ctx`, serves its verbs on `ctx.bus`, and returns its deps. */
  start(ctx: ServiceContext): Promise<Deps>;
}

/** Keeps the literal name and the deps type, so the registry and its callers stay typed. */
export const defineService = <Name extends string, Deps>(
  module: ServiceModule<Name, Deps>,
): ServiceModule<Name, Deps> => module;

/** The context `name` starts with: the process's logger scoped to the service, as every service logs. */
export function contextFor(name: string, parts: ServiceContext): ServiceContext {
  return { ...parts, log: parts.log.child({ service: name }) };
}
