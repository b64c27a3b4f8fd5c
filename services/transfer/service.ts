import type { Bus } from "../../shared/bus/port.ts";
import { serveEndpoint, serveIdempotentRoute } from "../../shared/serving/serve.ts";
import type { Logger } from "../../shared/process/log.ts";
import { defineService } from "../../shared/process/service-module.ts";
import { keptServiceSecret } from "../../shared/process/service-secret.ts";
import { type Idempotency, openIdempotency } from "../../shared/serving/idempotency.ts";
import { openRepo, type Repo } from "./repo.ts";
import { internal } from "../../shared/contract/internal.ts";
import { contractRoutes as routes } from "../../shared/contract/routes.ts";
import { envelopeForm, viewOverBus } from "../../shared/serving/replay-forms.ts";
import { consumeCode } from "./consume-code.ts";
import { createCode } from "./create-code.ts";
import { eraseCodes } from "./erase-codes.ts";

const group = "transfer";

/** What every transfer verb may use. `now` is injectable so tests can move time. */
export interface Deps {
  repo: Repo;
  bus: Bus;
  log: Logger;
  now: () => Date;
  /** Records of Idempotency-Key requests: retries get the first answer. */
  idempotency: Idempotency;
  /** HMAC key of the stored code hashes. */
  secret: string;
}

/** Transfer codes: create (route 9), consume (route 10), and erasure for deleted accounts. */
export const service = defineService({
  name: group,
  async start({ bus, store, env, log, now }) {
    const deps: Deps = {
      repo: await openRepo(store),
      bus,
      log,
      now,
      idempotency: await openIdempotency(store, log, now),
      secret: await keptServiceSecret(store, env, "SAVEPOINT_TRANSFER_SECRET"),
    };
    serve(deps);
    return deps;
  },
});

function serve(deps: Deps): void {
  const { bus } = deps;
  serveIdempotentRoute(bus, group, routes.createTransferCode, deps.idempotency, (m) => createCode(deps, m));
  serveIdempotentRoute(bus, group, routes.consumeTransferCode, deps.idempotency, (m) => consumeCode(deps, m), envelopeForm(viewOverBus(bus)));
  serveEndpoint(bus, group, internal.eraseTransferCodes, (input) => eraseCodes(deps, input.accountId));
}
