import { internal } from "../../shared/contract/internal.ts";
import { contractRoutes as routes } from "../../shared/contract/routes.ts";
import { defineService } from "../../shared/process/service-module.ts";
import { keptServiceSecret } from "../../shared/process/service-secret.ts";
import { openIdempotency } from "../../shared/serving/idempotency.ts";
import { envelopeForm, viewOverBus } from "../../shared/serving/replay-forms.ts";
import { serveEndpoint, serveIdempotentRoute } from "../../shared/serving/serve.ts";
import { consumeCode } from "./consume-code.ts";
import { createCode } from "./create-code.ts";
import type { Deps } from "./deps.ts";
import { eraseCodes } from "./erase-codes.ts";
import { openRepo } from "./repo.ts";

const group = "transfer";

/** Transfer codes: create (route 9), consume (route 10), and erasure for deleted accounts. */
export const service = defineService({
  name: group,
  async start({ bus, store, env, log, now }) {
    const deps: Deps = {
      repo: await openRepo(store),
      bus,
      log,
      now,
      idempotency: await openIdempotency(store, log, now, { dailyCap: env.SAVEPOINT_IDEMPOTENCY_DAILY_CAP }),
      secret: await keptServiceSecret(store, env, "SAVEPOINT_TRANSFER_SECRET"),
    };
    serve(deps);
    return deps;
  },
});

function serve(deps: Deps): void {
  const { bus } = deps;
  serveIdempotentRoute(bus, group, routes.createTransferCode, deps.idempotency, (m) => createCode(deps, m));
  serveIdempotentRoute(
    bus,
    group,
    routes.consumeTransferCode,
    deps.idempotency,
    (m) => consumeCode(deps, m),
    envelopeForm(viewOverBus(bus)),
  );
  serveEndpoint(bus, group, internal.eraseTransferCodes, (input) => eraseCodes(deps, input.accountId));
}
