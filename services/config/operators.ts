import { fail } from "../../shared/contract/errors.ts";
import { events } from "../../shared/contract/internal.ts";
import type { ResolvedOperator } from "../../shared/contract/operators.ts";
import type { OperatorRole } from "../../shared/contract/route.ts";
import { dropEverywhere } from "../../shared/revocation/cache-drops.ts";
import { sha256Hex } from "../../shared/util/crypto.ts";
import { newId, newOperatorToken } from "../../shared/util/ids.ts";
import type { Deps } from "./deps.ts";
import type { OperatorDoc } from "./repo.ts";

/** What every listing shows of an operator: never its token or the token's hash. */
const view = ({ _id, tokenHash: _, ...o }: OperatorDoc) => ({ operatorId: _id, ...o });

/** A named operator (docs/api-rules.md#operators): the caller sees its token once, the store only its hash. */
export async function createOperator(deps: Deps, input: { name: string; role: OperatorRole }, createdBy: string) {
  const operatorToken = newOperatorToken();
  const doc: OperatorDoc = {
    _id: newId("op"),
    tokenHash: sha256Hex(operatorToken),
    ...input,
    createdAt: deps.now().toISOString(),
    createdBy,
  };
  await deps.repo.operators.insert(doc);
  return { ...view(doc), operatorToken };
}

export async function listOperators(deps: Deps) {
  const operators = await deps.repo.operators.find({}, { sort: { field: "createdAt", direction: 1 } });
  return { operators: operators.map(view) };
}

export async function getOperator(deps: Deps, operatorId: string) {
  const o = await deps.repo.operators.get(operatorId);
  if (!o) throw fail.notFound("Operator");
  return view(o);
}

/** Stored, then dropped from every gateway copy's cache before the answer, like a runtime key's revocation. */
export async function revokeOperator(deps: Deps, operatorId: string) {
  const o = await deps.repo.operators.get(operatorId);
  if (!o) throw fail.notFound("Operator");
  const revokedAt = o.revokedAt ?? deps.now().toISOString();
  if (!o.revokedAt) await deps.repo.operators.update({ _id: operatorId }, { revokedAt });
  await dropEverywhere(deps.bus, events.operatorsChanged, { operatorId });
  return { operatorId, revokedAt };
}

/** The gateway's look-up of an operator token (by hash) or of a console session's operator (by id). */
export async function resolveOperator(
  deps: Deps,
  by: { tokenHash: string } | { operatorId: string },
): Promise<ResolvedOperator> {
  const o =
    "tokenHash" in by
      ? await deps.repo.operators.findOne({ tokenHash: by.tokenHash })
      : await deps.repo.operators.get(by.operatorId);
  if (!o || o.revokedAt)
    throw fail.unauthorized(
      "This operator token is unknown or revoked: ask an owner for a new one (npx savepoint operator create).",
    );
  return { operatorId: o._id, name: o.name, role: o.role };
}
