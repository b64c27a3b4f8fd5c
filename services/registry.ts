import { join } from "node:path";

/**
 * Every bus service, in start order (config first: the embedded bootstrap needs it). The embedded
 * process, the standalone entry point, the gateway's readiness, the test deployments and the
 * development script all derive from this list; tests/unit/registry.test.ts fails when infra/ or a
 * folder under services/ disagrees. Each entry loads its module on demand: a process that only needs
 * the names (a gateway) loads no service code.
 */
export const registry = {
  config: () => import("./config/service.ts"),
  accounts: () => import("./accounts/service.ts"),
  transfer: () => import("./transfer/service.ts"),
  "auth-bridge": () => import("./auth-bridge/service.ts"),
  billing: () => import("./billing/service.ts"),
  saves: () => import("./saves/service.ts"),
} as const;

export type ServiceName = keyof typeof registry;
export type ServiceOf<N extends ServiceName> = Awaited<ReturnType<(typeof registry)[N]>>["service"];
export type DepsOf<N extends ServiceName> = Awaited<ReturnType<ServiceOf<N>["start"]>>;

export const serviceNames = Object.keys(registry) as ServiceName[];

/** What follows `bun` to run `name` alone: the gateway has an entry of its own, every bus service shares one. */
export const entryArgs = (name: ServiceName | "gateway"): string[] =>
  name === "gateway" ? [join(import.meta.dir, "gateway", "main.ts")] : [join(import.meta.dir, "standalone.ts"), name];

export const isServiceName = (name: string): name is ServiceName => Object.hasOwn(registry, name);

/** The module registered as `name`; one exporting another name is a wiring mistake, refused here. */
export async function loadService<N extends ServiceName>(name: N): Promise<ServiceOf<N>> {
  const { service } = (await registry[name]()) as { service: ServiceOf<N> };
  if (service.name !== name) throw new Error(`services/registry.ts: "${name}" loads the module of "${service.name}"`);
  return service;
}
