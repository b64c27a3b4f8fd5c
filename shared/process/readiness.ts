import type { Bus } from "../bus/port.ts";
import { isAppError } from "../contract/errors.ts";
import { host } from "../serving/host.ts";
import type { Store } from "../store/port.ts";

/** The subject a service's copies answer readiness on. */
export const readinessSubject = (group: string) => `${group}.ready`;
const askTimeoutMs = 2_000;

/** Answers the gateway's readiness question for `group`: some copy is up and its store answers. */
export function serveReadiness(bus: Bus, group: string, store: Store): void {
  host(bus, group, readinessSubject(group), async () => {
    await store.ping();
    return { store: "ok" };
  });
}

export type Readiness = { ready: boolean; bus: string; degraded?: boolean; services: Record<string, string> };

/**
 * The gateway's readiness: ready while its bus is up (a balancer should route to it), and, for the
 * operator, whether each service has a copy whose store answers. A missing service or store makes it
 * `degraded`, not unready: every gateway would see the same, and taking them all out of the
 * balancer would turn a partial outage into a whole one. `groups` are the services' queue groups
 * (services/registry.ts: shared/ knows no service by name).
 */
export async function checkReadiness(bus: Bus, groups: readonly string[]): Promise<Readiness> {
  if (!bus.connected()) return { ready: false, bus: "disconnected", services: {} };
  const answers = await Promise.all(
    groups.map(async (group) => {
      try {
        await bus.request(readinessSubject(group), {}, { timeoutMs: askTimeoutMs });
        return [group, "ok"] as const;
      } catch (err) {
        return [group, isAppError(err) ? err.code : "error"] as const;
      }
    }),
  );
  return {
    ready: true,
    bus: "ok",
    degraded: answers.some(([, state]) => state !== "ok"),
    services: Object.fromEntries(answers),
  };
}

/** A process's own view: its bus connection and its store. */
export async function checkOwnReadiness(
  bus: Bus,
  store: Store,
): Promise<{ ready: boolean; bus: string; store: string }> {
  const busState = bus.connected() ? "ok" : "disconnected";
  const storeState = await store.ping().then(
    () => "ok",
    () => "unavailable",
  );
  return { ready: busState === "ok" && storeState === "ok", bus: busState, store: storeState };
}
