import { describe, expect, test } from "bun:test";
import { clientIp } from "../../services/gateway/client-ip.ts";
import { addressBlock } from "../../shared/util/address-block.ts";

describe("per-client limits count an IPv6 client as its /64 (addressBlock)", () => {
  test("every spelling of one /64 is one client; IPv4, mapped IPv4 and what is no address stay as they are", () => {
    const one = [
      "2001:db8:aa:1::1",
      "2001:0DB8:00AA:0001:ffff:ffff:ffff:ffff",
      "2001:db8:aa:1:0:0:0:abc",
      "2001:db8:aa:1::5%eth0",
      "2001:db8:aa:1::1.2.3.4",
    ];
    expect(new Set(one.map(addressBlock))).toEqual(new Set(["2001:db8:aa:1::/64"]));
    expect(addressBlock("2001:db8:aa:2::1")).toBe("2001:db8:aa:2::/64");
    expect(addressBlock("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressBlock("10.0.0.1")).toBe("10.0.0.1");
    expect(addressBlock("::ffff:10.0.0.1")).toBe("10.0.0.1");
    for (const odd of ["unknown", "1::2::3", "gg::1", "1:2:3:4:5:6:7:8:9", "1:2:3", "::1.2.3.999"])
      expect(addressBlock(odd)).toBe(odd);
  });

  test("the client a trusted proxy names is grouped; the proxy itself is matched by its own address", () => {
    const proxies = new Set(["127.0.0.1"]);
    expect(clientIp("::ffff:127.0.0.1", "2001:db8:1:2::5, 127.0.0.1", proxies)).toBe("2001:db8:1:2::/64");
    expect(clientIp("2001:db8:9:9::7", "10.0.0.1", proxies)).toBe("2001:db8:9:9::/64");
  });
});
