import { drainHeld, type Outbound } from "./held-bytes.ts";
import { connectUpstream } from "./proxy-upstream.ts";

/**
 * A TCP proxy that can stall: while stalled, bytes in both directions are held (the connections stay
 * open, as on a network that stops delivering), and `resume` delivers them in order. Used to cut one
 * process off from NATS without either side noticing a disconnect.
 */
export async function startStallProxy(upstream: string) {
  const { hostname, port } = new URL(upstream);
  let stalled = false;
  const links: { flush(): void }[] = [];

  type Side = Outbound;
  const drain = drainHeld;
  const send = (to: Side, bytes: Uint8Array) => {
    to.held.push(bytes);
    if (!stalled) drain(to);
  };

  const server = Bun.listen<{ up: Side; down: Side }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      async open(client) {
        const up: Side = { held: [] };
        const down: Side = { socket: client, held: [] };
        client.data = { up, down };
        links.push({
          flush: () => {
            drain(up);
            drain(down);
          },
        });
        const connected = await connectUpstream(hostname, Number(port), client, {
          data: (_s, bytes) => send(down, new Uint8Array(bytes)),
          drain: () => {
            if (!stalled) drain(up);
          },
          close: () => {
            client.end();
          },
        });
        if (!connected) return;
        up.socket = connected;
        if (!stalled) drain(up);
      },
      data: (client, bytes) => send(client.data.up, new Uint8Array(bytes)),
      drain: (client) => {
        if (!stalled) drain(client.data.down);
      },
      close: (client) => {
        client.data?.up.socket?.end();
      },
    },
  });

  return {
    url: `nats://127.0.0.1:${server.port}`,
    stall: () => {
      stalled = true;
    },
    resume() {
      stalled = false;
      for (const l of links) l.flush();
    },
    stop: () => server.stop(true),
  };
}
