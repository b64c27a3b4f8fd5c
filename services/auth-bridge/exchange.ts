import { fail } from "../../shared/contract/errors.ts";
import type { AuthSessionResponse } from "../../shared/contract/identity.ts";
import { internal } from "../../shared/contract/internal.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import type { Tenant } from "../../shared/contract/tenant.ts";
import { limitPerMinute } from "../../shared/limits/window-counter.ts";
import { failpoint } from "../../shared/observe/failpoint.ts";
import { callEndpoint } from "../../shared/serving/call.ts";
import { DuplicateKeyError } from "../../shared/store/port.ts";
import { inRounds, lostRound } from "../../shared/store/versioned.ts";
import { newId } from "../../shared/util/ids.ts";
import type { Deps } from "./deps.ts";
import { isProvider, type ProviderName } from "./providers.ts";
import { accountProviderKeyOf, type LinkDoc, linkIdOf, providerDocId } from "./repo.ts";
import { type Identity, verifyToken } from "./verify.ts";

type Message = RouteMessage<typeof contractRoutes.authSession>;
type Answer = (
  accountId: string,
  session: { accountSessionToken: string },
  isNewAccount: boolean,
  wasProviderNewForAccount: boolean,
) => Promise<AuthSessionResponse>;

/**
 * Route 4. Checks run cheapest first, and the plan gate before any key set is fetched: rate limit,
 * provider, plan, provider settings, then the token. Then (docs/api-rules.md#identity-providers): with a live current
 * session, link the identity to that account; else sign in to the linked account; else open a new
 * account linked to the identity.
 */
export async function exchange(deps: Deps, msg: Message): Promise<AuthSessionResponse> {
  const { tenant, body } = msg;
  await limitPerMinute(deps.repo.exchanges, deps.now().getTime(), tenant, msg.client.ip, {
    setting: "authExchangesPerIpPerMinute",
    counted: "sign-ins",
  });
  if (!isProvider(body.provider)) throw fail.providerNotSupported();
  const provider = body.provider;
  requirePaidPlanInProd(deps, tenant);
  const settings = await deps.repo.providers.get(providerDocId(tenant.envId, provider));
  if (!settings) throw fail.providerNotConfigured(provider);
  if (!settings.enabled) throw fail.providerNotEnabled(provider);

  const identity = await verifyToken(deps, provider, settings, body.token);
  const linkId = linkIdOf(deps.secret, tenant.envId, provider, identity.subject);
  const link = await deps.repo.links.get(linkId);
  const answer: Answer = async (accountId, session, isNewAccount, wasProviderNewForAccount) => ({
    accountId,
    accountSessionToken: session.accountSessionToken,
    isNewAccount,
    linkedProvider: provider,
    wasProviderNewForAccount,
    syncPolicy: tenant.syncPolicy,
  });

  if (msg.session) {
    const { accountId } = msg.session;
    if (link && link.accountId !== accountId) throw fail.accountAuthConflict();
    if (link) await touch(deps, link);
    else {
      // Linked to another account between the read and the insert: the same conflict.
      await insertLink(deps, { linkId, tenant, provider, accountId, identity }).catch((err) => {
        throw err instanceof DuplicateKeyError ? fail.accountAuthConflict() : err;
      });
    }
    return answer(
      accountId,
      await issue(deps, tenant, accountId, body.deviceLabel, msg.session.sessionId),
      false,
      !link,
    );
  }
  if (link && !link.pending) {
    await touch(deps, link);
    return answer(link.accountId, await issue(deps, tenant, link.accountId, body.deviceLabel), false, false);
  }

  return firstSignIn(deps, msg, link, { linkId, provider, identity }, answer);
}

/**
 * A first sign-in reserves the identity's link for a new account id before any account exists, then
 * opens the account under that id. Of concurrent first sign-ins one link wins and the others open or
 * join the account it names, so none leaves an account behind; a crash between the two steps leaves a
 * pending link, which the identity's next sign-in completes (docs/identity-providers.md).
 * Deleting the loser's account instead would leave one behind on a crash in between.
 */
async function firstSignIn(
  deps: Deps,
  msg: Message,
  found: LinkDoc | null,
  l: { linkId: string; provider: ProviderName; identity: Identity },
  answer: Answer,
): Promise<AuthSessionResponse> {
  const { tenant, body } = msg;
  // A round is lost only when an operator unlinks the identity between its insert and its read: 3 of
  // those in one sign-in are 503.
  const link =
    found ??
    (await inRounds({ rounds: 3 }, async () => {
      const reserved = linkDoc(
        deps,
        { linkId: l.linkId, tenant, provider: l.provider, accountId: newId("acc"), identity: l.identity },
        true,
      );
      // Of concurrent first sign-ins one insert wins, and every one of them reads the link that won.
      await deps.repo.links.insert(reserved).then(
        () => failpoint("auth-bridge.link-reserved"),
        (err) => {
          if (!(err instanceof DuplicateKeyError)) throw err;
        },
      );
      return (await deps.repo.links.get(l.linkId)) ?? lostRound;
    }));
  if (!link.pending) {
    await touch(deps, link);
    return answer(link.accountId, await issue(deps, tenant, link.accountId, body.deviceLabel), false, false);
  }
  const opened = await callEndpoint(deps.bus, internal.openAccount, {
    tenant,
    deviceLabel: body.deviceLabel,
    accountId: link.accountId,
  });
  await deps.repo.links.update({ _id: link._id, pending: true }, { pending: false });
  return answer(opened.accountId, opened, opened.opened, opened.opened);
}

/** docs/api-rules.md#identity-providers: a free workspace can test with stage keys, not sign players in on prod. */
function requirePaidPlanInProd(deps: Deps, tenant: Tenant) {
  if (tenant.environment !== "prod" || deps.plans[tenant.plan].authBridgeInProd) return;
  throw fail.authBridgeRequiresPaidPlan({
    environment: tenant.environment,
    plan: tenant.plan,
    upgradePath: `/admin/v1/workspaces/${tenant.workspaceId}`,
  });
}

/** A new device session for the account, from the accounts service that owns sessions; never revoking `keepSessionId`, the asking one. */
const issue = (deps: Deps, tenant: Tenant, accountId: string, deviceLabel?: string, keepSessionId?: string) =>
  callEndpoint(deps.bus, internal.issueSession, {
    envId: tenant.envId,
    accountId,
    deviceLabel,
    sessionIdleDays: tenant.settings.sessionIdleDays,
    ...(keepSessionId ? { keepSessionId } : {}),
  });

type NewLink = { linkId: string; tenant: Tenant; provider: ProviderName; accountId: string; identity: Identity };

function linkDoc(deps: Deps, l: NewLink, pending = false): LinkDoc {
  const at = deps.now().toISOString();
  return {
    _id: l.linkId,
    envId: l.tenant.envId,
    provider: l.provider,
    accountId: l.accountId,
    accountProviderKey: accountProviderKeyOf(l.accountId, l.provider),
    label: l.identity.display.label,
    ...(l.identity.display.emailHint ? { emailHint: l.identity.display.emailHint } : {}),
    linkedAt: at,
    lastUsedAt: at,
    ...(pending ? { pending } : {}),
  };
}

async function insertLink(deps: Deps, l: NewLink) {
  const doc = linkDoc(deps, l);
  try {
    await deps.repo.links.insert(doc);
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
    const same = await deps.repo.links.get(l.linkId);
    if (same?.accountId === l.accountId) return; // a concurrent identical link: done
    if (same) throw err; // the identity was linked elsewhere meanwhile: the caller decides
    // The identity is free, so the account's one link for this provider is another identity.
    throw fail.accountAuthConflict(`This account is already linked to another ${l.provider} identity.`);
  }
}

const touch = (deps: Deps, link: LinkDoc) =>
  deps.repo.links.update({ _id: link._id }, { lastUsedAt: deps.now().toISOString() });
