import { isIPv6 } from "node:net";

/**
 * The block of addresses one client holds, for what is counted or bound per client: an IPv4 address
 * alone, an IPv6 address's /64 (one household or phone is handed a whole /64 and may use any address
 * in it, so counting single addresses would give it 2^64 allowances). Anything else comes back as is.
 */
export function addressBlock(ip: string): string {
  const address = ip.split("%")[0]!;
  if (!isIPv6(address)) return ip;
  // An IPv4 client reaching an IPv6 socket: its IPv4 address, as the gateway's limits see it (client-ip.ts).
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const groups = (part: string) => (part ? part.split(":").flatMap((g) => (g.includes(".") ? ["0", "0"] : [g])) : []);
  const [head, tail] = address.split("::") as [string, string | undefined];
  const known = groups(head);
  const full = tail === undefined ? known : [...known, ...Array<string>(8 - known.length - groups(tail).length).fill("0"), ...groups(tail)];
  return `${full.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(":")}::/64`;
}
