import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { isIP } from "node:net";
import type { Logger } from "../../shared/observe/log.ts";

/** SAVEPOINT_TLS_CERT and SAVEPOINT_TLS_KEY: PEM files, the certificate (with its chain) and its private key. */
export interface TlsFiles {
  cert: string;
  key: string;
}
export interface TlsPair {
  cert: string;
  key: string;
  /** The certificate's last valid day, for the log line that says a new one is served. */
  notAfter: string;
}

/** Browsers keep to HTTPS for a year once they have seen this over HTTPS; subdomains are the operator's call. */
export const hsts = "max-age=31536000";

/**
 * Reads the pair and checks that the key is the certificate's: a renewal writes two files, and between
 * the writes they do not match. Throws a message naming the file.
 */
export function readTlsPair(files: TlsFiles): TlsPair {
  const read = (path: string, name: string) => {
    try {
      return readFileSync(path, "utf8");
    } catch (err) {
      throw new Error(`${name}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
  };
  const cert = read(files.cert, "SAVEPOINT_TLS_CERT");
  const key = read(files.key, "SAVEPOINT_TLS_KEY");
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new Error(`SAVEPOINT_TLS_CERT: ${files.cert} is not a PEM certificate`);
  }
  let matches: boolean;
  try {
    matches = x509.checkPrivateKey(createPrivateKey(key));
  } catch {
    throw new Error(`SAVEPOINT_TLS_KEY: ${files.key} is not a PEM private key`);
  }
  if (!matches)
    throw new Error(`SAVEPOINT_TLS_KEY: ${files.key} is not the private key of the certificate in ${files.cert}`);
  return { cert, key, notAfter: new Date(x509.validTo).toISOString() };
}

/** What changes when either file is rewritten or replaced (a renamed-in file, a swapped Kubernetes secret link). */
function stamp(files: TlsFiles): string {
  try {
    return [files.cert, files.key]
      .map((p) => statSync(p))
      .map((s) => `${s.ino}:${s.size}:${s.mtimeMs}`)
      .join("|");
  } catch {
    return "missing";
  }
}

/**
 * Calls `apply` with the new pair each time the files change into a matching pair. A half-written
 * renewal (files that do not match, or one missing) keeps the certificate being served, logged once.
 */
export function watchTlsFiles(
  files: TlsFiles,
  initial: TlsPair,
  log: Logger,
  apply: (pair: TlsPair) => void,
  intervalMs = 1_000,
): () => void {
  let seen = stamp(files);
  let served = initial.cert + initial.key;
  const timer = setInterval(() => {
    const now = stamp(files);
    if (now === seen) return;
    seen = now;
    let pair: TlsPair;
    try {
      pair = readTlsPair(files);
    } catch (err) {
      log.warn("TLS files changed but are not a usable pair yet: still serving the previous certificate", {
        err: (err as Error).message,
      });
      return;
    }
    if (pair.cert + pair.key === served) return;
    try {
      apply(pair);
      served = pair.cert + pair.key;
      log.info("TLS certificate reloaded", { notAfter: pair.notAfter });
    } catch (err) {
      log.error("TLS certificate reload failed: still serving the previous certificate", {
        err: (err as Error).message,
      });
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

const isLoopback = (host: string) =>
  host === "localhost" || (isIP(host) === 4 ? host.startsWith("127.") : host === "::1");

/**
 * Runtime keys and session tokens travel in headers: over plain HTTP on a reachable address, only a
 * TLS-terminating proxy in front protects them, and naming it in SAVEPOINT_TRUSTED_PROXIES is the one
 * sign the server has that there is one.
 */
export function warnIfPlainHttp(
  log: Logger,
  listener: { host: string; tls: boolean; trustedProxies: readonly string[] },
): void {
  if (listener.tls || isLoopback(listener.host) || listener.trustedProxies.length > 0) return;
  log.warn(
    `plain HTTP on ${listener.host}, which is not loopback, and no SAVEPOINT_TRUSTED_PROXIES: runtime keys and session tokens would cross the ` +
      "network readable. Set SAVEPOINT_TLS_CERT and SAVEPOINT_TLS_KEY, or put a TLS proxy in front and name it in SAVEPOINT_TRUSTED_PROXIES (docs/tls.md)",
    { host: listener.host },
  );
}
