import { expect, test } from "bun:test";
import { backupOrder } from "../../services/backup-order.ts";
import { serviceNames } from "../../services/registry.ts";

test("a backup copies every registered service's store once, transfer and auth-bridge before accounts, billing before config, config last", () => {
  expect([...backupOrder].sort()).toEqual([...serviceNames].sort());
  const at = (name: string) => backupOrder.indexOf(name as (typeof backupOrder)[number]);
  expect(at("transfer")).toBeLessThan(at("accounts"));
  expect(at("auth-bridge")).toBeLessThan(at("accounts"));
  expect(at("billing")).toBeLessThan(at("config"));
  expect(backupOrder.at(-1)).toBe("config");
});
