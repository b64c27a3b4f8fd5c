import type { JWTPayload } from "jose";
import { AuthProvider } from "../../shared/contract/identity.ts";
import type { ProviderSettings } from "./repo.ts";

export type ProviderName = AuthProvider;
export const isProvider = (p: string): p is ProviderName => AuthProvider.safeParse(p).success;

/** What a verified token says about the player, safe to show and store. */
export interface Display {
  label: string;
  emailHint?: string;
}

/** How one provider's tokens are checked (issue: auth bridge; each provider's own documentation). */
interface ProviderRules {
  /** Settings an operator must give. */
  required: (keyof ProviderSettings)[];
  /** Pinned: never `none`, never an HMAC algorithm. */
  algorithms: string[];
  issuer(s: ProviderSettings): string;
  audience(s: ProviderSettings): string;
  jwksUrl(s: ProviderSettings): string;
  /** Rules beyond signature, issuer, audience, exp, iat and sub; false refuses the token. */
  accepts(claims: JWTPayload, nowSeconds: number): boolean;
  display(claims: JWTPayload): Display;
}

const str = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : undefined);

/** `jane@example.com` -> `j***@example.com`: enough for a player to recognise, not to contact. */
export function maskEmail(email: unknown): string | undefined {
  const at = typeof email === "string" ? email.lastIndexOf("@") : -1;
  if (at < 1) return undefined;
  return `${(email as string)[0]}***${(email as string).slice(at)}`;
}

export const providers: Record<ProviderName, ProviderRules> = {
  firebase: {
    required: ["projectId"],
    algorithms: ["RS256"],
    issuer: (s) => `https://securetoken.google.com/${s.projectId}`,
    audience: (s) => s.projectId!,
    jwksUrl: () => "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
    accepts: (c, now) => typeof c.auth_time === "number" && c.auth_time <= now + 60,
    display: (c) => ({
      label: str((c.firebase as { sign_in_provider?: unknown } | undefined)?.sign_in_provider) ?? "Firebase",
      emailHint: maskEmail(c.email),
    }),
  },
  supabase: {
    required: ["projectRef"],
    algorithms: ["ES256", "RS256"],
    issuer: (s) => `https://${s.projectRef}.supabase.co/auth/v1`,
    audience: () => "authenticated",
    jwksUrl: (s) => `https://${s.projectRef}.supabase.co/auth/v1/.well-known/jwks.json`,
    // A project's anon and service_role keys are JWTs too: only a signed-in user's token is a player.
    accepts: (c) => c.role === "authenticated",
    display: (c) => ({
      label: str((c.app_metadata as { provider?: unknown } | undefined)?.provider) ?? "Supabase",
      emailHint: maskEmail(c.email),
    }),
  },
  auth0: {
    required: ["domain", "audience"],
    algorithms: ["RS256", "PS256"],
    issuer: (s) => `https://${s.domain}/`,
    audience: (s) => s.audience!,
    jwksUrl: (s) => `https://${s.domain}/.well-known/jwks.json`,
    accepts: () => true,
    // Auth0 subjects read `<connection>|<id>`: the connection is what the player signed in with.
    display: (c) => ({ label: str(c.sub?.split("|")[0]) ?? "Auth0", emailHint: maskEmail(c.email) }),
  },
};
