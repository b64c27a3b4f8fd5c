import { STATUS_CODES } from "node:http";
import { commonErrorCases } from "../../shared/contract/docs/common-errors.ts";
import { ErrorCode } from "../../shared/contract/errors.ts";
import { type ErrorCase, type Route, takesIdempotencyKey } from "../../shared/contract/route.ts";
import { statusOf } from "./errors.ts";

/** Every error the route answers with, by status: under one status its own cases first, then those of its kind. */
export function errorCasesOf(r: Route): ErrorCase[] {
  const cases = [...(r.errorCases ?? []), ...commonErrorCases(r)];
  return cases
    .map((c, i) => ({ c, i }))
    .sort((a, b) => statusOf[a.c.code] - statusOf[b.c.code] || a.i - b.i)
    .map(({ c }) => c);
}

/** The HTTP statuses the route documents: those it lists, 409 where it takes an Idempotency-Key, and each error case's. */
export function errorStatusesOf(r: Route): number[] {
  const statuses = new Set([
    ...r.errors,
    ...(takesIdempotencyKey(r) ? [409] : []),
    ...errorCasesOf(r).map((c) => statusOf[c.code]),
  ]);
  return [...statuses].sort((a, b) => a - b);
}

/** A table cell's Markdown: a `|` would end the cell, a line break the row. */
const cell = (markdown: string) => markdown.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");

/** The Markdown table under an operation's description: one row per error case. */
export function errorTable(r: Route): string {
  const rows = errorCasesOf(r).map((c) => `| ${statusOf[c.code]} | \`${c.code}\` | ${cell(c.when)} |`);
  if (rows.length === 0) return "This route answers with no error of its own.";
  return ["**Errors**", "", "| Status | Code | When |", "| --- | --- | --- |", ...rows].join("\n");
}

/** A response's description: the status's name and the codes the route answers with under it. */
export function errorResponseDescription(r: Route, status: number): string {
  const codes = [
    ...new Set(
      errorCasesOf(r)
        .filter((c) => statusOf[c.code] === status)
        .map((c) => `\`${c.code}\``),
    ),
  ];
  return codes.length ? `${STATUS_CODES[status]}: ${codes.join(", ")}` : STATUS_CODES[status]!;
}

/** Every code of the closed set by HTTP status, from the one status table. */
export function statusTable(): string {
  const byStatus = new Map<number, string[]>();
  for (const code of ErrorCode.options)
    byStatus.set(statusOf[code], [...(byStatus.get(statusOf[code]) ?? []), `\`${code}\``]);
  const rows = [...byStatus]
    .sort(([a], [b]) => a - b)
    .map(([status, codes]) => `| ${status} | ${STATUS_CODES[status]} | ${codes.join(", ")} |`);
  return ["| Status | Meaning | Codes |", "| --- | --- | --- |", ...rows].join("\n");
}
