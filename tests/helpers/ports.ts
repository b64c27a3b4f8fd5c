import { connect } from "node:net";

/** A free TCP port on loopback, as the kernel hands it out. */
export function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

/** Resolves once something accepts TCP connections on the port; rejects after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs = 30_000, what = "service"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ port, host: "127.0.0.1" }, () => {
        socket.end();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    await Bun.sleep(50);
  }
  throw new Error(`${what} did not open port ${port} within ${timeoutMs} ms`);
}
