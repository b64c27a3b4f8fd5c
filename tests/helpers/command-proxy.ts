import { drainHeld, type Outbound } from "./held-bytes.ts";
import { connectUpstream } from "./proxy-upstream.ts";

/**
 * A TCP proxy in front of a MongoDB-wire server that counts the commands clients send through it, by
 * name: what a request costs the store, counted where it cannot be missed (every process of a
 * deployment talks to the server through it). Server monitoring (hello and its heartbeats) is not a
 * command of a request and is left out.
 */
const monitoring = new Set([
  "hello",
  "ismaster",
  "isMaster",
  "buildInfo",
  "buildinfo",
  "ping",
  "endSessions",
  "saslStart",
  "saslContinue",
]);

/** OP_MSG: header (16 bytes), flag bits (4), then section kind 0 whose BSON body's first key names the command. */
const opMsg = 2013;
const latin1 = new TextDecoder("latin1");

function commandName(message: Uint8Array): string | null {
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  if (view.getInt32(12, true) !== opMsg || message[20] !== 0) return null;
  // Body: int32 length, then the first element: a type byte and its name as a C string.
  const start = 26;
  const end = message.indexOf(0, start);
  const name = new TextDecoder().decode(message.subarray(start, end));
  // A string value (type 2: int32 length, then the bytes and a 0) names the collection.
  if (message[start - 1] !== 2) return name;
  const length = new DataView(message.buffer, message.byteOffset + end + 1, 4).getInt32(0, true);
  return `${name} ${new TextDecoder().decode(message.subarray(end + 5, end + 4 + length))}`;
}

export async function startCommandProxy(upstream: string) {
  const { hostname, port } = new URL(upstream);
  let seen: { name: string; bytes: string }[] = [];
  const count = (name: string, message: Uint8Array) => {
    if (!monitoring.has(name.split(" ")[0]!)) seen.push({ name, bytes: latin1.decode(message) });
  };

  type Out = Outbound;
  const send = (to: Out, bytes: Uint8Array) => {
    to.held.push(new Uint8Array(bytes));
    flush(to);
  };
  const flush = drainHeld;

  type Link = { up: Out; down: Out; inbound: Uint8Array };
  const server = Bun.listen<Link>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      async open(client) {
        const link: Link = { up: { held: [] }, down: { socket: client, held: [] }, inbound: new Uint8Array(0) };
        client.data = link;
        const connected = await connectUpstream(hostname, Number(port), client, {
          data: (_s, bytes) => send(link.down, bytes),
          drain: () => flush(link.up),
          close: () => void client.end(),
        });
        if (!connected) return;
        link.up.socket = connected;
        flush(link.up);
      },
      data(client, bytes) {
        const link = client.data;
        // Messages may be split across reads: count each whole one once.
        const joined = new Uint8Array(link.inbound.byteLength + bytes.byteLength);
        joined.set(link.inbound);
        joined.set(bytes, link.inbound.byteLength);
        let at = 0;
        while (joined.byteLength - at >= 16) {
          const length = new DataView(joined.buffer, at, 4).getInt32(0, true);
          if (joined.byteLength - at < length) break;
          const name = commandName(joined.subarray(at, at + length));
          if (name) count(name, joined.subarray(at, at + length));
          at += length;
        }
        link.inbound = joined.slice(at);
        send(link.up, bytes);
      },
      drain: (client) => flush(client.data.down),
      close: (client) => void client.data?.up.socket?.end(),
    },
  });

  return {
    url: `mongodb://127.0.0.1:${server.port}/`,
    /**
     * The commands counted since the last `take`, by name and collection, and their total; those whose
     * message mentions any of `others` (another service's collection, or a lease on one) left out.
     */
    take(others: string[] = []) {
      const mine = seen.filter((c) => !others.some((o) => c.bytes.includes(o)));
      seen = [];
      const byName: Record<string, number> = {};
      for (const c of mine) byName[c.name] = (byName[c.name] ?? 0) + 1;
      return { total: mine.length, byName };
    },
    stop: () => server.stop(true),
  };
}
