import { type JWTPayload, decodeJwt, decodeProtectedHeader, errors, jwtVerify } from "jose";
import { fail } from "../../shared/contract/errors.ts";
import type { Deps } from "./deps.ts";
import { type Display, type ProviderName, providers } from "./providers.ts";
import type { ProviderSettings } from "./repo.ts";

/** The verified identity behind a provider token. */
export interface Identity {
  subject: string;
  display: Display;
}

// A token naming its own key would let its author pick the key that verifies it.
const keyNamingHeaders = ["jku", "jwk", "x5u", "x5c"] as const;

/** jose's failures of fetching the key set, as against failures of the token itself. */
const keySetUnreachable = (err: unknown) =>
  !(err instanceof errors.JOSEError) || err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || err.code === "ERR_JOSE_GENERIC";

const audienceOf = (claims: JWTPayload) => (Array.isArray(claims.aud) ? claims.aud : [claims.aud]);

/**
 * Verifies a provider token against the provider's key set and rules. A token whose own (unverified)
 * claims name another project is `<provider>_project_mismatch` before any key is fetched; every other
 * failure of the token is `<provider>_token_invalid`; a key set that cannot be fetched is 503.
 */
export async function verifyToken(deps: Deps, provider: ProviderName, settings: ProviderSettings, token: string): Promise<Identity> {
  const rules = providers[provider];
  const invalid = fail.tokenInvalid(provider);
  let claims: JWTPayload;
  try {
    const header = decodeProtectedHeader(token);
    if (keyNamingHeaders.some((h) => h in header) || !rules.algorithms.includes(String(header.alg))) throw invalid;
    claims = decodeJwt(token);
  } catch {
    throw invalid;
  }
  const issuer = rules.issuer(settings);
  const audience = rules.audience(settings);
  if (claims.iss !== issuer || !audienceOf(claims).includes(audience)) throw fail.projectMismatch(provider);

  const now = deps.now();
  try {
    // Settings store "" for a setting left out: no override means the provider's own key set.
    ({ payload: claims } = await jwtVerify(token, deps.keySets.get(settings.jwksUrl || rules.jwksUrl(settings)), {
      algorithms: rules.algorithms,
      issuer,
      audience,
      // jose checks exp only when present: these make it a must.
      requiredClaims: ["exp", "iat", "sub"],
      clockTolerance: 60,
      currentDate: now,
    }));
  } catch (err) {
    if (keySetUnreachable(err)) {
      deps.log.warn("provider key set unreachable", { provider, err: (err as Error).message });
      throw fail.serviceUnavailable(5);
    }
    throw invalid;
  }
  if (typeof claims.sub !== "string" || claims.sub.length === 0 || !rules.accepts(claims, Math.floor(now.getTime() / 1000))) throw invalid;
  return { subject: claims.sub, display: rules.display(claims) };
}
