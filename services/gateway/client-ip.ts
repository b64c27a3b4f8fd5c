import { addressBlock } from "../../shared/util/address-block.ts";

/** `::ffff:10.0.0.1` and `10.0.0.1` are one client. */
const normalize = (address: string) => address.trim().replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1");

/**
 * The client's address for per-client limits, as `addressBlock` counts it. It is the socket's peer
 * address, unless that peer is one of the operator's trusted proxies (`SAVEPOINT_TRUSTED_PROXIES`):
 * then it is the nearest `X-Forwarded-For` hop that is not itself a trusted proxy. A client cannot
 * spoof its address by sending the header itself: from an untrusted peer the header is ignored.
 */
export function clientIp(
  peer: string | undefined,
  forwardedFor: string | null,
  trustedProxies: ReadonlySet<string>,
): string {
  const direct = normalize(peer ?? "unknown");
  if (!forwardedFor || !trustedProxies.has(direct)) return addressBlock(direct);
  const hops = forwardedFor.split(",").map(normalize).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) if (!trustedProxies.has(hops[i]!)) return addressBlock(hops[i]!);
  return addressBlock(hops[0] ?? direct);
}
