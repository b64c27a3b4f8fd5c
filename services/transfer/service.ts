import { internal } from "../../shared/contract/internal.ts";
import { contractRoutes as routes } from "../../shared/contract/routes.ts";
import { endpointsFor } from "../../shared/process/service-endpoints.ts";
import { defineService } from "../../shared/process/service-module.ts";
import { keptServiceSecret } from "../../shared/process/service-secret.ts";
import { envelopeForm, viewOverBus } from "../../shared/serving/replay-forms.ts";
import { consumeCode } from "./consume-code.ts";
import { createCode } from "./create-code.ts";
import type { Deps } from "./deps.ts";
import { eraseCodes } from "./erase-codes.ts";
import { openRepo } from "./repo.ts";

const { idempotentRoute, endpoint } = endpointsFor<Deps>();

/** Transfer codes: create (route 9), consume (route 10), and erasure for deleted accounts. */
export const service = defineService<"transfer", Deps>({
  name: "transfer",
  endpoints: [
    idempotentRoute(routes.createTransferCode, createCode),
    idempotentRoute(routes.consumeTransferCode, consumeCode, (deps) => envelopeForm(viewOverBus(deps.bus))),
    endpoint(internal.eraseTransferCodes, (deps, input) => eraseCodes(deps, input.accountId)),
  ],
  open: async ({ store, env }) => ({
    repo: await openRepo(store),
    secret: await keptServiceSecret(store, env, "SAVEPOINT_TRANSFER_SECRET"),
  }),
});
