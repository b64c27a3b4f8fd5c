import { internal } from "../../shared/contract/internal.ts";
import { adminRoutes, contractRoutes as routes } from "../../shared/contract/routes.ts";
import { defineService } from "../../shared/process/service-module.ts";
import { keptServiceSecret } from "../../shared/process/service-secret.ts";
import { openIdempotency } from "../../shared/serving/idempotency.ts";
import { providerSessionForm, viewOverBus } from "../../shared/serving/replay-forms.ts";
import { serveEndpoint, serveIdempotentRoute, serveRoute } from "../../shared/serving/serve.ts";
import type { Deps } from "./deps.ts";
import { exchange } from "./exchange.ts";
import { createKeySets, keySetTimeoutMs } from "./key-sets.ts";
import { adminLinks, eraseLinks, listLinked, unlink } from "./links.ts";
import { openRepo } from "./repo.ts";
import { setProvider } from "./set-provider.ts";

const group = "auth-bridge";

/** Provider sign-in (route 4), linked providers (route 5), provider settings and links for operators. */
export const service = defineService({
  name: group,
  async start({ bus, store, env, plans, log, now }) {
    const deps: Deps = {
      repo: await openRepo(store),
      bus,
      log,
      idempotency: await openIdempotency(store, log, now, { dailyCap: env.SAVEPOINT_IDEMPOTENCY_DAILY_CAP }),
      plans,
      keySets: createKeySets({
        cooldownMs: env.SAVEPOINT_JWKS_COOLDOWN_MS,
        timeoutMs: keySetTimeoutMs(env.SAVEPOINT_BUS_TIMEOUT_MS),
      }),
      now,
      secret: await keptServiceSecret(store, env, "SAVEPOINT_LINK_SECRET"),
    };
    serve(deps);
    return deps;
  },
});

function serve(deps: Deps): void {
  const { bus } = deps;
  serveIdempotentRoute(
    bus,
    group,
    routes.authSession,
    deps.idempotency,
    (m) => exchange(deps, m),
    providerSessionForm(viewOverBus(bus)),
  );
  serveRoute(bus, group, routes.authProviders, (m) => listLinked(deps, m));
  serveRoute(bus, group, adminRoutes.setAuthProvider, (m) => setProvider(deps, m));
  serveRoute(bus, group, adminRoutes.unlinkProvider, (m) => unlink(deps, m));
  serveEndpoint(bus, group, internal.listLinks, (input) => adminLinks(deps, input.accountId));
  serveEndpoint(bus, group, internal.eraseLinks, (input) => eraseLinks(deps, input.accountId));
}
