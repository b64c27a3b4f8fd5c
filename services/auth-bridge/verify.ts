import { decodeJwt, decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from "jose";
import { fail, type TokenRefusal } from "../../shared/contract/errors.ts";
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
  !(err instanceof errors.JOSEError) ||
  err instanceof errors.JWKSTimeout ||
  err instanceof errors.JWKSInvalid ||
  err.code === "ERR_JOSE_GENERIC";

/** Clock skew allowed between a provider and this service, for exp, nbf and iat alike. */
const skewSeconds = 60;

/** What jose found wrong with a token, as a reason safe to show (no value of the token). */
function refusalOf(err: unknown): TokenRefusal {
  if (err instanceof errors.JWTExpired) return "expired";
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === "nbf") return "not_yet_valid";
    return err.reason === "missing" ? "missing_claim" : "wrong_claims";
  }
  if (err instanceof errors.JWKSNoMatchingKey) return "unknown_signing_key";
  if (err instanceof errors.JWSSignatureVerificationFailed) return "bad_signature";
  if (err instanceof errors.JOSEAlgNotAllowed) return "algorithm_not_allowed";
  return "malformed";
}

const audienceOf = (claims: JWTPayload) => (Array.isArray(claims.aud) ? claims.aud : [claims.aud]);

/**
 * Verifies a provider token against the provider's key set and rules. A token whose own (unverified)
 * claims name another project is `<provider>_project_mismatch` before any key is fetched; every other
 * failure of the token is `<provider>_token_invalid`; a key set that cannot be fetched is 503.
 */
export async function verifyToken(
  deps: Deps,
  provider: ProviderName,
  settings: ProviderSettings,
  token: string,
): Promise<Identity> {
  const rules = providers[provider];
  const invalid = (reason: TokenRefusal) => fail.tokenInvalid(provider, reason);
  let claims: JWTPayload;
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
    claims = decodeJwt(token);
  } catch {
    throw invalid("malformed");
  }
  if (keyNamingHeaders.some((h) => h in header)) throw invalid("key_named_in_header");
  if (!rules.algorithms.includes(String(header.alg))) throw invalid("algorithm_not_allowed");
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
      clockTolerance: skewSeconds,
      currentDate: now,
    }));
  } catch (err) {
    if (keySetUnreachable(err)) {
      deps.log.warn("provider key set unreachable", { provider, err: (err as Error).message });
      throw fail.serviceUnavailable(5);
    }
    throw invalid(refusalOf(err));
  }
  const nowSeconds = Math.floor(now.getTime() / 1000);
  // jose reads iat only against a maximum age: a token issued in the future would pass.
  if (claims.iat! > nowSeconds + skewSeconds) throw invalid("issued_in_future");
  if (typeof claims.sub !== "string" || claims.sub.length === 0) throw invalid("missing_claim");
  if (!rules.accepts(claims, nowSeconds)) throw invalid("wrong_claims");
  return { subject: claims.sub, display: rules.display(claims) };
}
