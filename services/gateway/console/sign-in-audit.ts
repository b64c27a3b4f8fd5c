import type { Bus } from "../../../shared/bus/port.ts";
import { internal } from "../../../shared/contract/internal.ts";
import type { ResolvedOperator } from "../../../shared/contract/operators.ts";
import { callEndpoint } from "../../../shared/serving/call.ts";

/**
 * Console sign-ins in the audit log (docs/operators.md): who signed in, or that a token was refused, and
 * from which address. Never the token. A refusal past the failure limit (429) is not recorded: the
 * limit already bounds how many refusals there are to record.
 */
export function signInAudit(bus: Bus) {
  return {
    /** `operator`: the operator signed in; null: the admin token; undefined: a refused token. */
    async record(request: Request, ip: string, operator: ResolvedOperator | null | undefined) {
      const actor = operator
        ? `operator:${operator.operatorId} (${operator.name})`
        : operator === null
          ? "console (admin token)"
          : "unknown";
      const entry = {
        actor,
        action: operator === undefined ? "adminConsoleSignInFailed" : "adminConsoleSignIn",
        method: "POST",
        path: new URL(request.url).pathname,
        target: operator?.operatorId ?? (operator === null ? "admin-token" : ""),
        targets: {},
        status: 303,
        before: null,
        after: { clientIp: ip },
      };
      // A sign-in is not refused, nor a refusal changed, because its record failed.
      await callEndpoint(bus, internal.recordAudit, entry).catch(() => undefined);
    },
  };
}
