import type { AuthProviderConfig } from "../../shared/contract/admin.ts";
import { fail } from "../../shared/contract/errors.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { adminRoutes } from "../../shared/contract/routes.ts";
import { envIdOf } from "../../shared/contract/tenant.ts";
import { DuplicateKeyError } from "../../shared/store/port.ts";
import type { Deps } from "./deps.ts";
import { providers } from "./providers.ts";
import { type ProviderDoc, providerDocId } from "./repo.ts";

const settingKeys = ["projectId", "projectRef", "domain", "audience", "jwksUrl"] as const;

/**
 * Operators turn a provider on or off for one environment and give what its tokens are checked
 * against. The whole setting is replaced: a field left out is cleared.
 */
export async function setProvider(
  deps: Deps,
  msg: RouteMessage<typeof adminRoutes.setAuthProvider>,
): Promise<AuthProviderConfig> {
  const { projectId, env, provider } = msg.params;
  const missing = providers[provider].required.filter((k) => !msg.body[k]);
  if (missing.length > 0)
    throw fail.invalidRequest(missing.map((k) => ({ path: `body.${k}`, message: `required for ${provider}` })));

  const envId = envIdOf(projectId, env);
  const doc: ProviderDoc = {
    _id: providerDocId(envId, provider),
    envId,
    provider,
    environment: env,
    enabled: msg.body.enabled,
    updatedAt: deps.now().toISOString(),
  };
  // Stored fields cannot be unset, only overwritten: an empty string stands for "not given".
  for (const k of settingKeys) doc[k] = msg.body[k] ?? "";
  const { _id, ...changes } = doc;
  if (!(await deps.repo.providers.update({ _id }, changes))) {
    await deps.repo.providers.insert(doc).catch(async (err) => {
      if (!(err instanceof DuplicateKeyError)) throw err;
      await deps.repo.providers.update({ _id }, changes); // a concurrent first setting: last one wins
    });
  }
  const settings = Object.fromEntries(settingKeys.filter((k) => doc[k]).map((k) => [k, doc[k]]));
  return { provider, environment: env, enabled: doc.enabled, ...settings, updatedAt: doc.updatedAt };
}
