import { expect, test } from "bun:test";
import { errorResponse } from "../../services/gateway/errors.ts";
import { defaultSyncPolicy } from "../../shared/contract/common.ts";
import { fail } from "../../shared/contract/errors.ts";
import { defaultProjectSettings } from "../../shared/contract/settings.ts";
import type { Tenant } from "../../shared/contract/tenant.ts";
import { tenantRefOf } from "../../shared/contract/tenant-ref.ts";
import { createLogger } from "../../shared/observe/log.ts";

const tenant: Tenant = {
  workspaceId: "wsp_u",
  projectId: "prj_u",
  environment: "stage",
  envId: "prj_u:stage",
  keyId: "key_u",
  plan: "free",
  billingStatus: "active",
  entitlements: { paymentRequired: false, monthlyRequests: null, perMinute: null },
  syncPolicy: defaultSyncPolicy,
  settings: defaultProjectSettings,
};

test("a tenant's reference names its content: the same content in another key order is the same reference, one changed setting another", () => {
  const backwards = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).reverse()) as T;
  const reordered = backwards({ ...tenant, settings: backwards(tenant.settings) });
  expect(tenantRefOf(reordered)).toBe(tenantRefOf(tenant));
  expect(tenantRefOf(tenant)).toMatch(/^key_u:[0-9a-f]{32}$/);
  expect(tenantRefOf({ ...tenant, settings: { ...tenant.settings, sessionIdleDays: 30 } })).not.toBe(
    tenantRefOf(tenant),
  );
  expect(tenantRefOf({ ...tenant, plan: "pro" })).not.toBe(tenantRefOf(tenant));
});

test("a bus-only error that reaches the edge is answered 503 service_unavailable, never as itself or as a 500", async () => {
  const res = errorResponse(fail.tenantUnknown("key_u:0"), "req_u", createLogger({ test: "tenant-ref" }));
  expect(res.status).toBe(503);
  expect(res.headers.get("retry-after")).toBe("1");
  const text = await res.text();
  expect(JSON.parse(text).error.code).toBe("service_unavailable");
  expect(text).not.toContain("tenant");
});
