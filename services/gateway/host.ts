import { fail } from "../../shared/contract/errors.ts";
import type { Logger } from "../../shared/observe/log.ts";
import { errorResponse } from "./errors.ts";
import { requestIdOf } from "./request-id.ts";

const label = "[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?";
/** A DNS name or IPv4 address (dot-separated labels), or a bracketed IPv6 address; then an optional port. */
const hostAndPort = new RegExp(`^(?:${label}(?:\\.${label})*\\.?|\\[[0-9A-Fa-f:.]+\\])(?::(\\d{1,5}))?$`);

// A server is reached under a few names: each is checked once, not on every request. Bounded, so a
// client sending ever new names only costs the check again.
const checked = new Map<string, boolean>();
const checkedAtMost = 256;

/** Whether `authority` (`host[:port]`) can name a server. */
export function isHostAndPort(authority: string): boolean {
  if (authority.length > 260) return false;
  let ok = checked.get(authority);
  if (ok !== undefined) return ok;
  const match = hostAndPort.exec(authority);
  ok = !!match && (match[1] === undefined || Number(match[1]) <= 65535);
  if (checked.size >= checkedAtMost) checked.clear();
  checked.set(authority, ok);
  return ok;
}

/**
 * Bun builds `request.url` from the Host header, and from a Host it cannot parse ("a b", "a/b", or
 * none on HTTP/1.0) it leaves the bare request target, such as "/p/../q". The router cuts the path
 * out of that URL by position, so only a URL whose cut falls where the path starts may reach it: a
 * short or broken Host would otherwise move the cut and route "/zz/metrics" as "/metrics". Over plain
 * HTTP the gateway cuts after "http://", at the first "/" (Elysia's `standardHostname: false`). Over
 * TLS the URL is "https://..." and Elysia's standard cut applies, at the first "/" from position 11:
 * the host must be at least 3 characters for it to land on the path ("https://" is 8).
 */
export function routableUrl(url: string, tls = false): boolean {
  const scheme = url.startsWith("http://") ? 7 : tls && url.startsWith("https://") ? 8 : 0;
  if (!scheme) return false;
  const end = url.indexOf("/", scheme);
  return end > scheme && (!tls || end >= 11) && isHostAndPort(url.slice(scheme, end));
}

/** An `onRequest` hook: 400 `invalid_request` for a request whose Host cannot be a host, before routing. */
export const refuseBadHost =
  (log: Logger, tls = false) =>
  ({ request }: { request: Request }): Response | undefined => {
    if (routableUrl(request.url, tls) && isHostAndPort(request.headers.get("host") ?? "localhost")) return undefined;
    const issue = {
      path: "headers.host",
      message: "The Host header must be a host name or IP address with an optional port, such as api.example.com:8080.",
    };
    return errorResponse(fail.invalidRequest([issue]), requestIdOf(request.headers), log);
  };
