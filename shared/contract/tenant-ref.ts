import { sha256Hex } from "../util/crypto.ts";
import type { Tenant } from "./tenant.ts";

/** JSON with every object's keys in order: the same tenant gives the same text whoever built the object. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return `{${entries
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
    .join(",")}}`;
};

/**
 * A tenant's reference on the bus: its runtime key and 128 bits of a hash of its content, so a changed
 * plan or setting is a new reference and a cached tenant is never stale (README, How it is built: the
 * tenant travels by reference). The key id is there for people reading logs.
 */
export const tenantRefOf = (tenant: Tenant): string => `${tenant.keyId}:${sha256Hex(canonical(tenant)).slice(0, 32)}`;
