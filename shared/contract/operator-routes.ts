import * as Op from "./operator.ts";
import * as O from "./operators.ts";
import { adminDocs } from "./docs/admin.ts";
import { route } from "./route.ts";

const admin = [401, 404, 500] as const;

/** Managing operators, owners only (docs/api-rules.md#operators), and reading one audit entry whole. */
export const operatorRoutes = {
  createOperator: route({
    operationId: "adminCreateOperator", method: "POST", path: "/admin/v1/operators", summary: "Create a named operator (its token shown once)",
    tag: "admin", auth: "admin", role: "owner", body: O.CreateOperatorRequest, ok: [201, O.CreatedOperator], errors: [400, ...admin],
    auditRead: "adminGetOperator", subject: "config.operator.create", ...adminDocs.createOperator,
  }),
  listOperators: route({
    operationId: "adminListOperators", method: "GET", path: "/admin/v1/operators", summary: "Every operator, revoked ones too, never a token",
    tag: "admin", auth: "admin", role: "owner", ok: [200, O.OperatorList], errors: admin, subject: "config.operator.list", ...adminDocs.listOperators,
  }),
  getOperator: route({
    operationId: "adminGetOperator", method: "GET", path: "/admin/v1/operators/:operatorId", summary: "One operator, never its token",
    tag: "admin", auth: "admin", role: "owner", params: O.OperatorPath, ok: [200, O.Operator], errors: [400, ...admin], subject: "config.operator.get",
    ...adminDocs.getOperator,
  }),
  revokeOperator: route({
    operationId: "adminRevokeOperator", method: "DELETE", path: "/admin/v1/operators/:operatorId", summary: "Revoke an operator's token at once",
    tag: "admin", auth: "admin", role: "owner", params: O.OperatorPath, ok: [200, O.RevokeOperatorResponse], errors: [400, ...admin],
    auditRead: "adminGetOperator", subject: "config.operator.revoke", ...adminDocs.revokeOperator,
  }),
  getAuditEntry: route({
    operationId: "adminGetAuditEntry", method: "GET", path: "/admin/v1/audit/:auditId", summary: "One audit entry, its before and after whole",
    tag: "admin", auth: "admin", role: "viewer", params: Op.AuditPath, ok: [200, Op.AuditEntry], errors: [400, ...admin], subject: "config.audit.get",
    ...adminDocs.getAuditEntry,
  }),
};
