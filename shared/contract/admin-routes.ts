import { accountAdminRoutes, accountHistoryRoutes } from "./account-admin-routes.ts";
import { configVersionRoutes } from "./config-version-routes.ts";
import { adminDeskRoutes } from "./desk-routes.ts";
import { lookupRoutes } from "./lookup-routes.ts";
import { operatorRoutes } from "./operator-routes.ts";
import { adminSaveRoutes } from "./restore-routes.ts";
import { workspaceRoutes } from "./workspace-routes.ts";

/** Operator routes (docs/api-rules.md#operators) this build serves, in the order the reference lists them. */
export const adminRoutes = {
  ...workspaceRoutes,
  ...accountHistoryRoutes,
  ...adminSaveRoutes,
  ...adminDeskRoutes,
  ...operatorRoutes,
  ...accountAdminRoutes,
  ...configVersionRoutes,
  ...lookupRoutes,
};
