import { expect, test } from "bun:test";
import { operatorRoles, type Route } from "../../shared/contract/route.ts";
import { allRoutes } from "../../shared/contract/routes.ts";

test("every admin route declares the least operator role it needs, and only reads are open to viewers", () => {
  const admin = (allRoutes as readonly Route[]).filter((r) => r.auth === "admin");
  expect(admin.length).toBeGreaterThan(40);
  expect(admin.filter((r) => !operatorRoles.includes(r.role!)).map((r) => r.operationId)).toEqual([]);
  expect(admin.filter((r) => r.role === "viewer" && r.method !== "GET").map((r) => r.operationId)).toEqual([]);
  // Support: players only, never keys, plans, config or other operators.
  expect(
    admin
      .filter((r) => r.role === "support" && r.method !== "GET")
      .map((r) => r.operationId)
      .sort(),
  ).toEqual([
    "adminEditAccountData",
    "adminEditSlot",
    "adminRestoreAccountData",
    "adminRestoreSave",
    "adminRestoreSlot",
    "adminRevokeSession",
  ]);
});
