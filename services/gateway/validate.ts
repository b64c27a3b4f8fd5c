import type { z } from "zod";
import type { TooLargeParams } from "../../shared/contract/common.ts";
import { fail } from "../../shared/contract/errors.ts";

const tooLargeOf = (issue: z.core.$ZodIssue) =>
  (issue as { params?: TooLargeParams }).params?.tooLarge
    ? (issue as unknown as { params: TooLargeParams }).params
    : undefined;

/**
 * Parses `value` with `schema`. Type and shape problems are 400 with every issue; when the only
 * problems are fields over their byte limit, the first one is 413 with its sizes.
 */
export function validate<T>(schema: z.ZodType<T>, value: unknown, prefix?: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const where = (path: PropertyKey[]) => [prefix, ...path.map(String)].filter(Boolean).join(".") || "body";
  const issues = result.error.issues;
  if (issues.every((i) => tooLargeOf(i))) {
    const { limitBytes, actualBytes } = tooLargeOf(issues[0]!)!;
    throw fail.payloadTooLarge(where(issues[0]!.path), limitBytes, actualBytes);
  }
  throw fail.invalidRequest(issues.map((i) => ({ path: where(i.path), message: i.message })));
}
