import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const cookieName = "sp_console";
export const preCookieName = "sp_console_pre";
/** How long a console sign-in lasts; then the operator signs in again. */
export const sessionSeconds = 8 * 3600;

const mac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest("base64url");
const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * Console sessions need no store: a cookie carries its expiry and id, signed with a key derived from
 * the admin token, so every gateway copy accepts it and changing the token signs everyone out.
 */
export function consoleKeys(adminToken: string, now: () => number = Date.now) {
  const key = createHmac("sha256", adminToken).update("savepoint console v1").digest();
  return {
    /** A new session's cookie value. */
    issue(expiresAt = now() + sessionSeconds * 1000): string {
      const body = `${expiresAt}.${randomBytes(16).toString("base64url")}`;
      return `${body}.${mac(key, body)}`;
    },
    /** The session of a valid, unexpired cookie value, else undefined. */
    session(value: string | undefined): { sid: string; expiresAt: number } | undefined {
      const [exp, sid, sig] = (value ?? "").split(".");
      if (!exp || !sid || !sig || !same(sig, mac(key, `${exp}.${sid}`))) return undefined;
      return Number(exp) > now() ? { sid, expiresAt: Number(exp) } : undefined;
    },
    verify(value: string | undefined): string | undefined {
      return this.session(value)?.sid;
    },
    csrfOf: (sid: string) => mac(key, `csrf.${sid}`),
    checkCsrf: (sid: string, token: string | null) => Boolean(token) && same(token!, mac(key, `csrf.${sid}`)),
    tokenMatches: (token: string) => same(mac(key, `token.${token}`), mac(key, `token.${adminToken}`)),
  };
}
export type ConsoleKeys = ReturnType<typeof consoleKeys>;

export function cookieOf(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return undefined;
}

/** HttpOnly, SameSite=Strict, scoped to the console; Secure unless served over plain loopback HTTP. */
export function setCookie(request: Request, name: string, value: string, maxAgeSeconds: number): string {
  const secure = new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https" ? "; Secure" : "";
  return `${name}=${value}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}
