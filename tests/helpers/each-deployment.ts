import { afterAll, beforeAll, describe } from "bun:test";
import type { Logger } from "../../shared/observe/log.ts";
import { admin, newTenant } from "./api.ts";
import {
  type Deployment,
  type DistributedOptions,
  deployment,
  deploymentNames,
  startDistributed,
  startEmbedded,
} from "./deployments.ts";

export type DeploymentName = Deployment["name"];
export type Tenant = Awaited<ReturnType<typeof newTenant>>;
export type EmbeddedDeployment = Awaited<ReturnType<typeof startEmbedded>>;

/** Every deployment has a base URL; the shared ones are typed as plain deployments by their helper. */
export type AnyDeployment = Deployment & { base: string };

/** What a suite runs against: the deployment, and another gateway copy (the same one when there is one). */
export interface Started {
  d: AnyDeployment;
  other: Deployment;
}

export interface TenantOptions {
  plan?: string;
  environment?: "stage" | "prod";
  /** Project rate limits raised for suites that send more than one player would. */
  rateLimits?: Record<string, number>;
}

export interface EachDeploymentOptions<S extends { d: Deployment }, T extends object> {
  /** Deployments of this suite's own, stopped after it, instead of the run's shared pair. Implied by every start option. */
  own?: boolean;
  /** Environment of both deployments. */
  env?: Record<string, string>;
  /** The embedded deployment's clock and logger. */
  embedded?: { now?: () => Date; log?: Logger };
  /** The distributed deployment's processes: gateway copies, services. Two gateway copies make `other` the second. */
  distributed?: Omit<DistributedOptions, "env">;
  /** Starts each deployment the suite's own way (extra handles beside `d`); stopped through `stop` when given, else `d.stop`. */
  start?: Record<DeploymentName, () => Promise<S & { stop?: () => Promise<void> }>>;
  /** A fresh tenant made once the deployment is up: settings for `newTenant`, or the suite's own function. */
  tenant?: true | TenantOptions | ((d: S["d"]) => Promise<T>);
  /** How long starting (and making the tenant) may take, when longer than a test may. */
  timeoutMs?: number;
}

/**
 * Filled once the deployment is up, so tests and hooks read it: every object here stands in for the
 * real one from the start, so the body can take them apart where it is declared.
 */
export interface EachDeployment<S extends { d: Deployment }, T extends object> {
  name: DeploymentName;
  d: S["d"];
  setup: S;
  tenant: T;
}

/**
 * One `describe(\`${title} (embedded)\`)` and one `(distributed)`: each starts its deployment before its
 * tests and stops it after them (the shared deployments stay for the run), with a fresh tenant if asked.
 */
export function forEachDeployment(title: string, body: (t: EachDeployment<Started, Tenant>) => void): void;
export function forEachDeployment<S extends { d: Deployment } = Started, T extends object = Tenant>(
  title: string,
  options: EachDeploymentOptions<S, T>,
  body: (t: EachDeployment<S, T>) => void,
): void;
export function forEachDeployment(title: string, ...args: unknown[]): void {
  const [options, body] = (args.length === 1 ? [{}, args[0]] : args) as [
    EachDeploymentOptions<Started, object>,
    (t: EachDeployment<Started, object>) => void,
  ];
  for (const name of deploymentNames) {
    describe(`${title} (${name})`, () => {
      let setup: (Started & { stop?: () => Promise<void> }) | undefined;
      let tenant: object | undefined;
      const own = ownDeployments(options);
      beforeAll(async () => {
        setup = await (options.start?.[name] ?? (() => startDefault(name, options, own)))();
        if (options.tenant) tenant = await makeTenant(setup.d, options.tenant);
      }, options.timeoutMs);
      const d = standIn(() => setup?.d, `the ${name} deployment`);
      body({
        name,
        d,
        setup: standIn(() => setup, `the ${name} setup`),
        tenant: standIn(() => tenant, `the ${name} tenant`),
      });
      // After the body's own afterAll hooks (they run in the order declared), which may still use it.
      if (own) afterAll(() => (setup?.stop ? setup.stop() : setup?.d.stop()));
    });
  }
}

const ownDeployments = (o: EachDeploymentOptions<Started, object>) =>
  Boolean(o.own || o.env || o.embedded || o.distributed || o.start);

async function startDefault(
  name: DeploymentName,
  o: EachDeploymentOptions<Started, object>,
  own: boolean,
): Promise<Started> {
  if (!own) {
    const d = (await deployment(name)) as AnyDeployment;
    return { d, other: d };
  }
  if (name === "embedded") {
    const d = await startEmbedded(o.env, o.embedded);
    return { d, other: d };
  }
  const d = await startDistributed({ ...o.distributed, env: o.env });
  const second = d.bases[1];
  return { d, other: second ? { ...d, request: (path, init) => fetch(`${second}${path}`, init) } : d };
}

async function makeTenant(
  d: AnyDeployment,
  how: NonNullable<EachDeploymentOptions<Started, object>["tenant"]>,
): Promise<object> {
  if (typeof how === "function") return how(d);
  const o = how === true ? {} : how;
  const t = await newTenant(d, o.plan, o.environment);
  if (o.rateLimits) {
    const set = await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, { rateLimits: o.rateLimits });
    if (set.status !== 200) throw new Error(`tenant settings failed: ${set.status} ${JSON.stringify(set.body)}`);
  }
  return t;
}

/** An object that forwards every read to `current()`, which is filled only once the deployment is up. */
function standIn<T extends object>(current: () => T | undefined, what: string): T {
  const real = () => current() ?? fail(`${what} is read before it started: read it inside a test or hook`);
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(real(), key),
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const found = Reflect.getOwnPropertyDescriptor(real(), key);
      return found && { ...found, configurable: true };
    },
  });
}

function fail(message: string): never {
  throw new Error(message);
}
