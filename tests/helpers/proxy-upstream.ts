import type { Socket, SocketHandler } from "bun";

/**
 * A test proxy's connection to its upstream for a client that just connected. An upstream that cannot
 * be reached (stopped, restarting) closes the client, as a real proxy does: thrown from the listener's
 * `open`, the refusal would be an error outside any test.
 */
export async function connectUpstream(
  hostname: string,
  port: number,
  client: Socket<unknown>,
  socket: SocketHandler<undefined>,
): Promise<Socket<undefined> | undefined> {
  try {
    return await Bun.connect({ hostname, port, socket });
  } catch {
    client.end();
    return undefined;
  }
}
