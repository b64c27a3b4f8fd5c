import { timingSafeEqual } from "node:crypto";
import type { Bus } from "../../shared/bus/port.ts";
import { fail, isAppError } from "../../shared/contract/errors.ts";
import { events, internal, type ResolvedSession } from "../../shared/contract/internal.ts";
import type { ResolvedOperator } from "../../shared/contract/operators.ts";
import type { SessionActor, Tenant } from "../../shared/contract/tenant.ts";
import { joinCacheDrops } from "../../shared/revocation/cache-drops.ts";
import { callEndpoint } from "../../shared/serving/call.ts";
import { sha256Hex } from "../../shared/util/crypto.ts";
import { accountHeader } from "./account-headers.ts";
import { TtlCache } from "./cache.ts";

const runtimeKeyShape = "Send the runtime key as `Authorization: Bearer spk_<env>_...`.";
/** Route 4 treats these sessions as none (docs/api-rules.md#sessions). */
const noSession = new Set(["unauthorized", "session_revoked", "session_expired"]);

const bearer = (headers: Headers) => /^Bearer\s+(\S+)$/i.exec(headers.get("authorization") ?? "")?.[1];

/**
 * Authenticates once, at the edge: runtime keys and sessions are hashed here and resolved over the
 * bus, then cached. Revocations and status changes are confirmed by this gateway before they are
 * answered, and cached entries are used only while it is in touch with the bus (docs/operating.md#lifecycle (Revocation)),
 * so a revoked key or a suspended account is refused on the next request; an answer asked for before
 * such a change is used once but never cached (it may predate the change).
 */
export function createAuth(bus: Bus, adminToken: string | undefined, timeoutMs?: number, now = () => new Date()) {
  const tenants = new TtlCache<Tenant>(60_000);
  const operators = new TtlCache<ResolvedOperator>(60_000);
  const sessions = new TtlCache<ResolvedSession>(30_000, undefined, () => now().getTime());
  const trust = joinCacheDrops(
    bus,
    (subject, data) => {
      if (subject === events.tenantsChanged.subject) return tenants.clear();
      if (subject === events.operatorsChanged.subject) return operators.clear();
      const { accountId } = events.sessionsChanged.schema.parse(data);
      sessions.deleteWhere((s) => s.accountId === accountId);
    },
    () => {
      tenants.clear();
      sessions.clear();
      operators.clear();
    },
  );
  const adminHash = adminToken ? Buffer.from(sha256Hex(adminToken)) : undefined;

  async function resolve(tenant: Tenant, token: string, busHeaders: Record<string, string>): Promise<ResolvedSession> {
    const tokenHash = sha256Hex(token);
    const cacheKey = `${tenant.envId}:${tokenHash}`;
    let session = trust.trusted() ? sessions.get(cacheKey) : undefined;
    if (!session) {
      const asOf = sessions.generation;
      const request = { envId: tenant.envId, tokenHash, sessionIdleDays: tenant.settings.sessionIdleDays };
      session = await callEndpoint(bus, internal.resolveSession, request, { headers: busHeaders, timeoutMs });
      // Never kept past the moment it would expire unused (docs/using-the-api.md#sessions-and-devices).
      sessions.set(cacheKey, session, asOf, Date.parse(session.expiresAt));
    }
    return session;
  }

  async function resolveOperator(
    cacheKey: string,
    by: { tokenHash: string } | { operatorId: string },
  ): Promise<ResolvedOperator> {
    const cached = trust.trusted() ? operators.get(cacheKey) : undefined;
    if (cached) return cached;
    const asOf = operators.generation;
    const operator = await callEndpoint(bus, internal.resolveOperator, by, { timeoutMs });
    operators.set(cacheKey, operator, asOf);
    return operator;
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
      if (!key?.startsWith("spk_")) throw fail.unauthorized(runtimeKeyShape);
      const keyHash = sha256Hex(key);
      const cached = trust.trusted() ? tenants.get(keyHash) : undefined;
      if (cached) return cached;
      const asOf = tenants.generation;
      const tenant = await callEndpoint(
        bus,
        internal.resolveRuntimeKey,
        { keyHash },
        { headers: busHeaders, timeoutMs },
      );
      tenants.set(keyHash, tenant, asOf);
      return tenant;
    },

    /**
     * docs/api-rules.md#sessions: 401 unknown, 410 deleted, 403 suspended, 403 another account. The
     * account is the path's, or on a path without one the X-Service-Account-ID header's.
     */
    async session(
      tenant: Tenant,
      headers: Headers,
      pathAccountId: string | undefined,
      busHeaders: Record<string, string>,
    ): Promise<SessionActor> {
      const token = accountHeader(headers, "session");
      if (!token)
        throw fail.unauthorized(
          "Send the account's session token as `X-Service-Account-Session: <accountSessionToken>`.",
        );
      const accountId = pathAccountId ?? accountHeader(headers, "accountId");
      if (!accountId) throw fail.unauthorized("The X-Service-Account-ID header is required.");
      const session = await resolve(tenant, token, busHeaders);
      if (session.accountStatus === "deleted") throw fail.accountDeleted();
      return actorFor(session, accountId);
    },

    /**
     * Route 4's current session: only when both account headers are sent and the session is live.
     * An unknown, revoked or deleted account's session counts as none (docs/api-rules.md#sessions).
     */
    async optionalSession(
      tenant: Tenant,
      headers: Headers,
      busHeaders: Record<string, string>,
    ): Promise<SessionActor | undefined> {
      const token = accountHeader(headers, "session");
      const accountId = accountHeader(headers, "accountId");
      if (!token || !accountId) return undefined;
      const session = await resolve(tenant, token, busHeaders).catch((err) => {
        if (isAppError(err) && noSession.has(err.code)) return undefined;
        throw err;
      });
      if (!session || session.accountStatus === "deleted") return undefined;
      return actorFor(session, accountId);
    },

    /**
     * Who an admin request acts as (docs/api-rules.md#operators): the bootstrap admin token is the owner;
     * an operator token (`spo_...`) is its operator, resolved over the bus and cached like runtime keys
     * (a revocation drops it on every copy). With the admin token, the console names the operator its
     * session signed in (`X-Savepoint-Console-Operator`): whoever holds that token is the owner anyway.
     */
    async admin(headers: Headers): Promise<AdminCaller> {
      const token = bearer(headers);
      const hash = token ? sha256Hex(token) : "";
      if (adminHash && token && timingSafeEqual(Buffer.from(hash), adminHash)) {
        const operatorId = headers.get(consoleOperatorHeader);
        return operatorId ? resolveOperator(`id:${operatorId}`, { operatorId }) : { role: "owner" };
      }
      if (!token?.startsWith("spo_")) {
        throw fail.unauthorized(
          "Send the server's SAVEPOINT_ADMIN_TOKEN or an operator token as `Authorization: Bearer <token>`.",
        );
      }
      return resolveOperator(hash, { tokenHash: hash });
    },
  };
}
export type Auth = ReturnType<typeof createAuth>;
/** The console's header naming its signed-in operator; honoured only beside the bootstrap admin token. */
export const consoleOperatorHeader = "x-savepoint-console-operator";
/** An admin request's caller: a named operator, or the bootstrap admin token (an owner with no name). */
export type AdminCaller = ResolvedOperator | { role: "owner"; operatorId?: undefined; name?: undefined };
