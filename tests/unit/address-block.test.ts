import { expect, test } from "bun:test";
import { addressBlock } from "../../shared/util/address-block.ts";

/** docs/api-rules.md#idempotent-retries: an IPv6 /64 is one client; an IPv4 address is itself. */
test("an IPv6 address stands for its /64, however it is written; IPv4 and anything else as is", () => {
  const block = "2001:db8:1:2::/64";
  for (const ip of ["2001:db8:1:2::1", "2001:DB8:1:2:ffff::9", "2001:0db8:0001:0002:1:2:3:4", "2001:db8:1:2::1%eth0"])
    expect(addressBlock(ip)).toBe(block);
  expect(addressBlock("2001:db8:1:3::1")).not.toBe(block);
  expect(addressBlock("2001:db8::1")).toBe("2001:db8:0:0::/64");
  expect(addressBlock("::ffff:198.51.100.7")).toBe("198.51.100.7");
  expect(addressBlock("198.51.100.7")).toBe("198.51.100.7");
  expect(addressBlock("unknown")).toBe("unknown");
});
