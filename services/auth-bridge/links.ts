import type { z } from "zod";
import type { AdminLink } from "../../shared/contract/admin.ts";
import { fail } from "../../shared/contract/errors.ts";
import type { LinkedAuthProvider } from "../../shared/contract/identity.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { adminRoutes, contractRoutes } from "../../shared/contract/routes.ts";
import type { Deps } from "./deps.ts";
import { accountProviderKeyOf, type LinkDoc } from "./repo.ts";

/** What anyone but the service sees of a link: never the subject, a hash or a token. */
const view = (l: LinkDoc): z.infer<typeof AdminLink> => ({
  provider: l.provider,
  label: l.label,
  ...(l.emailHint ? { emailHint: l.emailHint } : {}),
  linkedAt: l.linkedAt,
  lastUsedAt: l.lastUsedAt,
});

/** An account's links, at most one per provider, oldest first. */
const linksOf = (deps: Deps, accountId: string) =>
  deps.repo.links.find({ accountId }, { sort: { field: "linkedAt", direction: 1 } });

/** Route 5: the session's account's linked providers. */
export async function listLinked(
  deps: Deps,
  msg: RouteMessage<typeof contractRoutes.authProviders>,
): Promise<z.infer<typeof LinkedAuthProvider>[]> {
  return (await linksOf(deps, msg.session.accountId)).map(({ provider, label, emailHint, linkedAt, lastUsedAt }) => ({
    provider,
    display: { label, ...(emailHint ? { emailHint } : {}) },
    linkedAt,
    lastUsedAt,
  }));
}

/** The operator view's links. */
export const adminLinks = async (deps: Deps, accountId: string) => (await linksOf(deps, accountId)).map(view);

/** Operators unlink an identity: it can sign in again, and then opens a new account. */
export async function unlink(deps: Deps, msg: RouteMessage<typeof adminRoutes.unlinkProvider>) {
  const { accountId, provider } = msg.params;
  const removed = await deps.repo.links.delete({ accountProviderKey: accountProviderKeyOf(accountId, provider) });
  if (removed === 0) throw fail.notFound("Link");
  return { accountId, provider, unlinkedAt: deps.now().toISOString() };
}

/** A deleted account's links, gone. Idempotent: the cleanup worker may ask twice. */
export async function eraseLinks(deps: Deps, accountId: string) {
  // And the records of its sign-ins, which would hand out a session again (docs/api-rules.md#idempotent-retries).
  await deps.idempotency.forget(accountId);
  return { erased: await deps.repo.links.delete({ accountId }) };
}
