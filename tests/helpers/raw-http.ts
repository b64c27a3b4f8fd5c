import { connect } from "node:net";

export interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

/**
 * One HTTP request written by hand on a new connection, which the server closes after answering.
 * fetch would fix the Host header and normalise the path before sending them; this sends them as given.
 */
export function rawRequest(port: number, requestHead: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(requestHead));
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk) => (text += chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const [head = "", body = ""] = text.split("\r\n\r\n");
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0), head, body });
    });
  });
}

/** GET `path` as written, with `host` (none when undefined) and `Connection: close`. */
export function rawGet(port: number, path: string, host: string | undefined, headers: Record<string, string> = {}) {
  const lines = [
    `GET ${path} HTTP/1.1`,
    ...(host === undefined ? [] : [`Host: ${host}`]),
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return rawRequest(port, `${[...lines, "Connection: close"].join("\r\n")}\r\n\r\n`);
}
