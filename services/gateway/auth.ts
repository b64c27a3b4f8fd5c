import { timingSafeEqual } from "node:crypto";
import type { Bus } from "../../shared/bus/port.ts";
import { callEndpoint } from "../../shared/bus/serve.ts";
import { fail, isAppError } from "../../shared/contract/errors.ts";
import { type ResolvedSession, events, internal } from "../../shared/contract/internal.ts";
import type { SessionActor, Tenant } from "../../shared/contract/tenant.ts";
import { sha256Hex } from "../../shared/crypto.ts";
import { accountHeader } from "./account-headers.ts";
import { TtlCache } from "./cache.ts";

const bearer = (headers: Headers) => /^Bearer\s+(\S+)$/i.exec(headers.get("authorization") ?? "")?.[1];

/**
 * Authenticates once, at the edge: runtime keys and sessions are hashed here and resolved over the
 * bus, then cached. Revocations and status changes arrive as events and drop the cached entries, so
 * a revoked key or a suspended account is refused on the next request.
 */
export function createAuth(bus: Bus, adminToken: string | undefined, timeoutMs?: number) {
  const tenants = new TtlCache<Tenant>(60_000);
  const sessions = new TtlCache<ResolvedSession>(30_000);
  bus.subscribe(events.tenantsChanged.subject, () => tenants.clear());
  bus.subscribe(events.sessionsChanged.subject, (data) => {
    const { accountId } = events.sessionsChanged.schema.parse(data);
    sessions.deleteWhere((s) => s.accountId === accountId);
  });
  const adminHash = adminToken ? Buffer.from(sha256Hex(adminToken)) : undefined;

  async function resolve(tenant: Tenant, token: string, busHeaders: Record<string, string>): Promise<ResolvedSession> {
    const tokenHash = sha256Hex(token);
    const cacheKey = `${tenant.envId}:${tokenHash}`;
    let session = sessions.get(cacheKey);
    if (!session) {
      session = await callEndpoint(bus, internal.resolveSession, { envId: tenant.envId, tokenHash }, { headers: busHeaders, timeoutMs });
      sessions.set(cacheKey, session);
    }
    return session;
  }

  /** A live session may act only for its own account, and not while the account is suspended. */
  function actorFor(session: ResolvedSession, accountId: string): SessionActor {
    if (session.accountId !== accountId) throw fail.forbidden();
    if (session.accountStatus === "suspended") throw fail.accountSuspended();
    return { sessionId: session.sessionId, accountId: session.accountId };
  }

  return {
    async tenant(headers: Headers, busHeaders: Record<string, string>): Promise<Tenant> {
      const key = bearer(headers);
      if (!key?.startsWith("spk_")) throw fail.unauthorized("A valid runtime key is required.");
      const keyHash = sha256Hex(key);
      const cached = tenants.get(keyHash);
      if (cached) return cached;
      const tenant = await callEndpoint(bus, internal.resolveRuntimeKey, { keyHash }, { headers: busHeaders, timeoutMs });
      tenants.set(keyHash, tenant);
      return tenant;
    },

    /**
     * decisions.md, Credentials: 401 unknown, 410 deleted, 403 suspended, 403 another account. The
     * account is the path's, or on a path without one the X-Service-Account-ID header's.
     */
    async session(tenant: Tenant, headers: Headers, pathAccountId: string | undefined, busHeaders: Record<string, string>): Promise<SessionActor> {
      const token = accountHeader(headers, "session");
      if (!token) throw fail.unauthorized("The X-Service-Account-Session header is required.");
      const accountId = pathAccountId ?? accountHeader(headers, "accountId");
      if (!accountId) throw fail.unauthorized("The X-Service-Account-ID header is required.");
      const session = await resolve(tenant, token, busHeaders);
      if (session.accountStatus === "deleted") throw fail.accountDeleted();
      return actorFor(session, accountId);
    },

    /**
     * Route 4's current session: only when both account headers are sent and the session is live.
     * An unknown, revoked or deleted account's session counts as none (contract, route 4 rule 3).
     */
    async optionalSession(tenant: Tenant, headers: Headers, busHeaders: Record<string, string>): Promise<SessionActor | undefined> {
      const token = accountHeader(headers, "session");
      const accountId = accountHeader(headers, "accountId");
      if (!token || !accountId) return undefined;
      const session = await resolve(tenant, token, busHeaders).catch((err) => {
        if (isAppError(err) && err.code === "unauthorized") return undefined;
        throw err;
      });
      if (!session || session.accountStatus === "deleted") return undefined;
      return actorFor(session, accountId);
    },

    admin(headers: Headers): void {
      const token = bearer(headers);
      if (!adminHash || !token || !timingSafeEqual(Buffer.from(sha256Hex(token)), adminHash)) throw fail.unauthorized("A valid admin token is required.");
    },
  };
}
export type Auth = ReturnType<typeof createAuth>;
