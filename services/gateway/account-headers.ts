import { fail } from "../../shared/contract/errors.ts";

/**
 * The contract's account headers and the names SDKs of the product the contract comes from send for
 * them (docs/api-rules.md#compatibility). The contract's names stay primary in docs and errors.
 */
const accountHeaders = {
  session: { name: "X-Service-Account-Session", alias: "X-Persistly-Account-Session" },
  accountId: { name: "X-Service-Account-ID", alias: "X-Persistly-Account-ID" },
} as const;
export type AccountHeader = keyof typeof accountHeaders;

/** The header's value under either name; both sent with different values is 400. */
export function accountHeader(headers: Headers, which: AccountHeader): string | undefined {
  const { name, alias } = accountHeaders[which];
  const primary = headers.get(name);
  const aliased = headers.get(alias);
  if (primary !== null && aliased !== null && primary !== aliased) {
    throw fail.invalidRequest([{ path: `header.${name}`, message: `${name} and ${alias} differ: send one of them` }]);
  }
  return primary ?? aliased ?? undefined;
}

/** Refuses contradicting account headers on every route, also where a route does not read them. */
export function checkAccountHeaders(headers: Headers): void {
  for (const which of Object.keys(accountHeaders) as AccountHeader[]) accountHeader(headers, which);
}
