import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const cookieName = "sp_console";
export const preCookieName = "sp_console_pre";
/** How long a console sign-in lasts; then the operator signs in again. */
export const sessionSeconds = 8 * 3600;
/** How long a sign-in form may wait for its token. */
export const signInFormSeconds = 3600;

const mac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest("base64url");
const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * What the console signs, each kind under its own key and with its kind inside what is signed, so no
 * value made for one purpose is ever accepted for another: a sign-in form's cookie is not a session,
 * a CSRF token is not a cookie, a message shown on a page is neither (docs/console.md).
 */
type Kind = "session" | "sign-in-form" | "csrf" | "message" | "token";

/**
 * Console sessions need no store: a cookie carries its kind, expiry and id, signed with a key derived
 * from the admin token, so every gateway copy accepts it and changing the token signs everyone out.
 * Only `issueSession` makes a session, and only a sign-in with the admin token or an operator token calls
 * it; a session of an operator carries its id, and the gateway refuses it once the operator is revoked.
 */
export function consoleKeys(adminToken: string, now: () => number = Date.now) {
  const keys = new Map<Kind, Buffer>();
  const keyOf = (kind: Kind) =>
    keys.get(kind) ??
    keys.set(kind, createHmac("sha256", adminToken).update(`savepoint console ${kind} v2`).digest()).get(kind)!;
  const sign = (kind: Kind, text: string) => mac(keyOf(kind), `${kind}\n${text}`);
  const prefix = { session: "s3", "sign-in-form": "f3" } as const;

  // The operator a session signed in ("-" for the admin token, and in every sign-in form) is signed with it.
  const issue = (kind: "session" | "sign-in-form", expiresAt: number, operator = "-") => {
    const body = `${prefix[kind]}.${expiresAt}.${randomBytes(16).toString("base64url")}.${operator}`;
    return `${body}.${sign(kind, body)}`;
  };
  const open = (kind: "session" | "sign-in-form", value: string | undefined) => {
    const parts = (value ?? "").split(".");
    const [tag, exp, id, operator, sig] = parts;
    if (parts.length !== 5 || tag !== prefix[kind] || !exp || !id || !operator || !sig) return undefined;
    if (!same(sig, sign(kind, `${tag}.${exp}.${id}.${operator}`)) || !(Number(exp) > now())) return undefined;
    return { sid: id, expiresAt: Number(exp), ...(operator === "-" ? {} : { operatorId: operator }) };
  };
  const csrfText = (kind: "session" | "sign-in-form", id: string) => `${kind}\n${id}`;

  return {
    /** A new session's cookie value: call only after the admin token, or the operator's own token, was checked. */
    issueSession: (expiresAt = now() + sessionSeconds * 1000, operatorId?: string) =>
      issue("session", expiresAt, operatorId ?? "-"),
    /** The sign-in form's cookie value: it only ties the form to this browser (login CSRF). */
    issueSignInForm: (expiresAt = now() + signInFormSeconds * 1000) => issue("sign-in-form", expiresAt),
    /** The session of a valid, unexpired session cookie value, else undefined. */
    session: (value: string | undefined) => open("session", value),
    /** The id of a valid, unexpired sign-in form cookie value, else undefined. */
    signInForm: (value: string | undefined) => open("sign-in-form", value)?.sid,
    csrfOf: (kind: "session" | "sign-in-form", id: string) => sign("csrf", csrfText(kind, id)),
    checkCsrf: (kind: "session" | "sign-in-form", id: string, token: string | null) =>
      Boolean(token) && same(token!, sign("csrf", csrfText(kind, id))),
    /** A seal on a message the console chose for this session, so a link cannot make it show another. */
    sealMessage: (sid: string, message: string) => sign("message", `${sid}\n${message}`),
    checkMessage: (sid: string, message: string, seal: string | null) =>
      Boolean(seal) && same(seal!, sign("message", `${sid}\n${message}`)),
    tokenMatches: (token: string) => same(sign("token", token), sign("token", adminToken)),
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

/**
 * HttpOnly, SameSite=Strict, scoped to the console; Secure when the browser reached the gateway over
 * HTTPS: the request's own scheme, or X-Forwarded-Proto from a trusted proxy only (`viaHttps`).
 */
export function setCookie(name: string, value: string, maxAgeSeconds: number, viaHttps: boolean): string {
  return `${name}=${value}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${viaHttps ? "; Secure" : ""}`;
}
