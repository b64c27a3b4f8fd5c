import type { Server } from "bun";
import { clientIp } from "./client-ip.ts";

export interface Peer {
  /** The client's IP address for per-client limits (client-ip.ts). */
  ip: string;
  /**
   * Whether the browser reached us over HTTPS: the request's own scheme, or X-Forwarded-Proto sent
   * by a trusted proxy (SAVEPOINT_TRUSTED_PROXIES). From anyone else the header is ignored, as
   * X-Forwarded-For is.
   */
  https: boolean;
}

/** Who sent `request`, as far as the socket and the operator's trusted proxies tell. */
export function peerOf(request: Request, server: Server<unknown> | null, trustedProxies: ReadonlySet<string>): Peer {
  const direct = server?.requestIP(request)?.address;
  const forwardedFor = request.headers.get("x-forwarded-for");
  const viaProxy = direct !== undefined && trustedProxies.has(clientIp(direct, null, trustedProxies));
  const https = request.url.startsWith("https:") || (viaProxy && request.headers.get("x-forwarded-proto") === "https");
  return { ip: clientIp(direct, forwardedFor, trustedProxies), https };
}
