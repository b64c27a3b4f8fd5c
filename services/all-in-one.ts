import { loadPlans } from "../shared/contract/plans.ts";
import type { Logger } from "../shared/observe/log.ts";
import type { Env } from "../shared/process/env.ts";
import { openBus, openStore } from "../shared/process/open.ts";
import { serveReadiness } from "../shared/process/readiness.ts";
import { contextFor } from "../shared/process/service-module.ts";
import type { Store } from "../shared/store/port.ts";
import { startBackupSchedule } from "./backup-schedule.ts";
import { bootstrapDefaults, firstProjectId } from "./config/bootstrap.ts";
import { createGateway } from "./gateway/app.ts";
import { createDrain } from "./gateway/drain.ts";
import { gatewaySettings } from "./gateway/listen.ts";
import { type DepsOf, loadService, type ServiceName, serviceNames } from "./registry.ts";

/**
 * Every service and the gateway in one process, on whichever bus and store `env` names. Returns the
 * gateway (not yet listening), with SAVEPOINT_ADMIN_ADDRESS also the admin listener's, the first-start
 * credentials if this start created them (else the oldest project's id, for a hint), and the stops in start order. `now` is the services' clock
 * (tests move it).
 */
export async function startAllInOne(env: Env, log: Logger, now: () => Date = () => new Date()) {
  const plans = await loadPlans(env.SAVEPOINT_PLANS);
  const bus = await openBus(env, "savepoint", log);
  const stores: Store[] = [];
  for (const name of serviceNames) {
    const store = await openStore(env, name, log);
    serveReadiness(bus, name, store);
    stores.push(store);
  }
  const started: Partial<{ [N in ServiceName]: DepsOf<N> }> = {};
  for (const [i, name] of serviceNames.entries()) {
    const service = await loadService(name);
    (started as Record<ServiceName, unknown>)[name] = await service.start(
      contextFor(name, { bus, store: stores[i]!, env, plans, log, now }),
    );
  }
  const bootstrap = await bootstrapDefaults(started.config!);
  // A later start prints no key: it names the project a new one is made for (main.ts).
  const firstProject = bootstrap ? bootstrap.projectId : await firstProjectId(started.config!);
  const drain = createDrain();
  const backups = startBackupSchedule(env, log.child({ job: "backup" }));
  const gatewayOptions = {
    bus,
    log: log.child({ service: "gateway" }),
    drain,
    now,
    backups: backups?.status,
    ...gatewaySettings(env),
  };
  // With an admin address, the admin API and /metrics get a listener of their own (docs/operators.md).
  const gateway = createGateway({ ...gatewayOptions, surface: env.SAVEPOINT_ADMIN_ADDRESS ? "public" : "all" });
  const adminGateway = env.SAVEPOINT_ADMIN_ADDRESS ? createGateway({ ...gatewayOptions, surface: "admin" }) : undefined;
  // Stopped in reverse: a backup in progress ends before the stores close.
  const stops = [...stores.map((store) => () => store.close()), () => bus.close(), () => backups?.stop()];
  return { gateway, adminGateway, bus, bootstrap, firstProject, stops, drain };
}
