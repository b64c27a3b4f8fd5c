/**
 * What one client is to every per-client limit: an IPv4 address as it is, an IPv6 address as its /64
 * (`2001:db8:0:1::/64`), and anything else (a hop that is no address) as it is. A subscriber is given a
 * whole /64 at least, so counting IPv6 addresses one by one would let one client be as many as it likes.
 */
export function addressBlock(address: string): string {
  const plain = address.trim().replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1");
  const groups = ipv6Groups(plain);
  return groups
    ? `${groups
        .slice(0, 4)
        .map((g) => g.toString(16))
        .join(":")}::/64`
    : plain;
}

/** The eight 16-bit groups of an IPv6 address (a zone is dropped, a dotted IPv4 tail read), or null. */
function ipv6Groups(address: string): number[] | null {
  if (!address.includes(":")) return null;
  let text = address.split("%")[0]!.toLowerCase();
  const v4 = /:(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const b = v4.slice(1).map(Number);
    if (b.some((x) => x > 255)) return null;
    text = `${text.slice(0, v4.index)}:${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parts = (s: string) => (s === "" ? [] : s.split(":"));
  const head = parts(halves[0]!);
  const tail = halves.length === 2 ? parts(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  return groups.every((g) => /^[0-9a-f]{1,4}$/.test(g)) ? groups.map((g) => Number.parseInt(g, 16)) : null;
}
