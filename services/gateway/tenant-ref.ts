import type { Bus, RequestOptions } from "../../shared/bus/port.ts";
import type { Tenant } from "../../shared/contract/tenant.ts";
import { tenantRefOf } from "../../shared/contract/tenant-ref.ts";
import { requestRoute } from "../../shared/serving/call.ts";
import type { Reply } from "../../shared/serving/reply.ts";
import { vouch } from "../../shared/serving/vouched.ts";

// Computed once per tenant object: auth.ts hands every request of a cached tenant the same one.
const refs = new WeakMap<Tenant, string>();

export function refOf(tenant: Tenant): string {
  let ref = refs.get(tenant);
  if (!ref) {
    ref = tenantRefOf(tenant);
    refs.set(tenant, ref);
  }
  return ref;
}

/**
 * Sends a route's message with its tenant by reference (README, How it is built: the tenant travels by
 * reference). A service copy that does not hold it yet answers `tenant_unknown` before anything ran, and
 * gets this one request again with the tenant in full, which it keeps: the client never sees the exchange.
 * `message` holds only values the gateway checked with the route's schemas, so it is vouched for (vouched.ts).
 */
export async function requestWithTenant(
  bus: Bus,
  subject: string,
  tenant: Tenant,
  message: object,
  options: RequestOptions,
): Promise<Reply> {
  const reply = await requestRoute(bus, subject, vouch({ ...message, tenantRef: refOf(tenant) }), options);
  if (reply.kind !== "error" || reply.error.code !== "tenant_unknown") return reply;
  return requestRoute(bus, subject, vouch({ ...message, tenant }), options);
}
