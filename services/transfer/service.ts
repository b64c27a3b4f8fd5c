import { serveEndpoint, serveIdempotentRoute } from "../../shared/serving/serve.ts";
import { internal } from "../../shared/contract/internal.ts";
import { contractRoutes as routes } from "../../shared/contract/routes.ts";
import { envelopeForm, viewOverBus } from "../../shared/serving/replay-forms.ts";
import { consumeCode } from "./consume-code.ts";
import { createCode } from "./create-code.ts";
import type { Deps } from "./deps.ts";
import { eraseCodes } from "./erase-codes.ts";

export const group = "transfer";

/** Transfer codes: create (route 9), consume (route 10), and erasure for deleted accounts. */
export function startTransfer(deps: Deps): void {
  const { bus } = deps;
  serveIdempotentRoute(bus, group, routes.createTransferCode, deps.idempotency, (m) => createCode(deps, m));
  serveIdempotentRoute(bus, group, routes.consumeTransferCode, deps.idempotency, (m) => consumeCode(deps, m), envelopeForm(viewOverBus(bus)));
  serveEndpoint(bus, group, internal.eraseTransferCodes, (input) => eraseCodes(deps, input.accountId));
}
