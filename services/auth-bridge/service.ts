import { internal } from "../../shared/contract/internal.ts";
import { adminRoutes, contractRoutes as routes } from "../../shared/contract/routes.ts";
import { endpointsFor } from "../../shared/process/service-endpoints.ts";
import { defineService } from "../../shared/process/service-module.ts";
import { keptServiceSecret } from "../../shared/process/service-secret.ts";
import { providerSessionForm, viewOverBus } from "../../shared/serving/replay-forms.ts";
import type { Deps } from "./deps.ts";
import { exchange } from "./exchange.ts";
import { createKeySets, keySetTimeoutMs } from "./key-sets.ts";
import { adminLinks, eraseLinks, listLinked, unlink } from "./links.ts";
import { openRepo } from "./repo.ts";
import { setProvider } from "./set-provider.ts";

const { route, idempotentRoute, endpoint } = endpointsFor<Deps>();

/** Provider sign-in (route 4), linked providers (route 5), provider settings and links for operators. */
export const service = defineService<"auth-bridge", Deps>({
  name: "auth-bridge",
  endpoints: [
    idempotentRoute(routes.authSession, exchange, (deps) => providerSessionForm(viewOverBus(deps.bus))),
    route(routes.authProviders, listLinked),
    route(adminRoutes.setAuthProvider, setProvider),
    route(adminRoutes.unlinkProvider, unlink),
    endpoint(internal.listLinks, (deps, input) => adminLinks(deps, input.accountId)),
    endpoint(internal.eraseLinks, (deps, input) => eraseLinks(deps, input.accountId)),
  ],
  open: async ({ store, env }) => ({
    repo: await openRepo(store),
    keySets: createKeySets({
      cooldownMs: env.SAVEPOINT_JWKS_COOLDOWN_MS,
      timeoutMs: keySetTimeoutMs(env.SAVEPOINT_BUS_TIMEOUT_MS),
    }),
    secret: await keptServiceSecret(store, env, "SAVEPOINT_LINK_SECRET"),
  }),
});
