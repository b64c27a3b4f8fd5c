import type { Bus } from "../bus/port.ts";
import type { Tenant } from "../contract/tenant.ts";
import { tenantRefOf } from "../contract/tenant-ref.ts";

/** Enough for every tenant active at once on a busy copy; one pushed out costs one resend. */
const maxTenants = 10_000;

const deepFreeze = <T>(value: T): T => {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
};

/**
 * The tenants this service copy has validated, by the reference it computed itself from their content
 * (README, How it is built: the tenant travels by reference), so a sender's reference never names other
 * content than its own. Least recently used go first. Handlers share each one: it is frozen.
 */
export class KnownTenants {
  private readonly byRef = new Map<string, Tenant>();

  get(ref: string): Tenant | undefined {
    const tenant = this.byRef.get(ref);
    if (tenant) {
      this.byRef.delete(ref);
      this.byRef.set(ref, tenant);
    }
    return tenant;
  }

  /** Keeps a tenant that passed the schema; answers the one object kept under its reference. */
  add(tenant: Tenant): Tenant {
    const ref = tenantRefOf(tenant);
    const known = this.get(ref);
    if (known) return known;
    if (this.byRef.size >= maxTenants) this.byRef.delete(this.byRef.keys().next().value!);
    this.byRef.set(ref, deepFreeze(tenant));
    return tenant;
  }
}

// One per bus connection, that is per process outside tests: every service of the embedded process
// shares one, and a second connection in a test is a second copy with its own.
const perBus = new WeakMap<Bus, KnownTenants>();

export function knownTenantsOf(bus: Bus): KnownTenants {
  let known = perBus.get(bus);
  if (!known) {
    known = new KnownTenants();
    perBus.set(bus, known);
  }
  return known;
}
