import { fail } from "../../shared/contract/errors.ts";

const printableAscii = /^[\x20-\x7e]{1,255}$/;

/** The request's Idempotency-Key (decisions.md, Idempotent retries): 1 to 255 printable ASCII characters. */
export function idempotencyKeyOf(headers: Headers): string | undefined {
  const key = headers.get("idempotency-key");
  if (key === null) return undefined;
  if (!printableAscii.test(key)) {
    throw fail.invalidRequest([{ path: "header.Idempotency-Key", message: "must be 1 to 255 printable ASCII characters" }]);
  }
  return key;
}
