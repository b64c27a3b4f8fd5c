import { serveEndpoint, serveIdempotentRoute, serveRoute } from "../../shared/serving/serve.ts";
import { internal } from "../../shared/contract/internal.ts";
import { providerSessionForm, viewOverBus } from "../../shared/serving/replay-forms.ts";
import { adminRoutes, contractRoutes as routes } from "../../shared/contract/routes.ts";
import type { Deps } from "./deps.ts";
import { exchange } from "./exchange.ts";
import { adminLinks, eraseLinks, listLinked, unlink } from "./links.ts";
import { setProvider } from "./set-provider.ts";

export const group = "auth-bridge";

/** Provider sign-in (route 4), linked providers (route 5), provider settings and links for operators. */
export function startAuthBridge(deps: Deps): void {
  const { bus } = deps;
  serveIdempotentRoute(bus, group, routes.authSession, deps.idempotency, (m) => exchange(deps, m), providerSessionForm(viewOverBus(bus)));
  serveRoute(bus, group, routes.authProviders, (m) => listLinked(deps, m));
  serveRoute(bus, group, adminRoutes.setAuthProvider, (m) => setProvider(deps, m));
  serveRoute(bus, group, adminRoutes.unlinkProvider, (m) => unlink(deps, m));
  serveEndpoint(bus, group, internal.listLinks, (input) => adminLinks(deps, input.accountId));
  serveEndpoint(bus, group, internal.eraseLinks, (input) => eraseLinks(deps, input.accountId));
}
