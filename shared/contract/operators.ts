import { z } from "zod";
import { Timestamp } from "./common.ts";
import { operatorRoles } from "./route.ts";

/** Named operators of the admin API (docs/api-rules.md#operators). */
export const OperatorRole = z.enum(operatorRoles).meta({ id: "OperatorRole" });
export const OperatorId = z.string().regex(/^op_[A-Za-z0-9]+$/);
export const OperatorPath = z.strictObject({ operatorId: OperatorId });
export const CreateOperatorRequest = z
  .strictObject({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .regex(/^[^\x00-\x1f\x7f()]+$/, "must be printable, without parentheses"),
    role: OperatorRole,
  })
  .meta({ id: "CreateOperatorRequest" });
/** An operator as every listing shows it: never its token or the token's hash. */
export const Operator = z
  .object({
    operatorId: z.string(),
    name: z.string(),
    role: OperatorRole,
    createdAt: Timestamp,
    createdBy: z.string(),
    revokedAt: Timestamp.optional(),
  })
  .meta({ id: "Operator" });
export const CreatedOperator = Operator.extend({ operatorToken: z.string() }).meta({ id: "CreatedOperator" });
export const OperatorList = z.object({ operators: z.array(Operator) }).meta({ id: "OperatorList" });
export const RevokeOperatorResponse = z
  .object({ operatorId: z.string(), revokedAt: Timestamp })
  .meta({ id: "RevokeOperatorResponse" });
/** What the gateway needs of an operator: who it is and what it may do. */
export const ResolvedOperator = z.object({ operatorId: z.string(), name: z.string(), role: OperatorRole });
export type ResolvedOperator = z.infer<typeof ResolvedOperator>;
