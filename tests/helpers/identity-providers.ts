import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";
import { trackChild } from "./infra.ts";

/**
 * Stand-ins for Firebase, Supabase and Auth0 that tests fully control: real key pairs, key sets
 * served over HTTP on loopback (each request counted), and tokens minted with each provider's claims.
 * Verification in the service stays real: only the key set's address differs, through `jwksUrl`.
 */
export type ProviderName = "firebase" | "supabase" | "auth0";

export interface Signer {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function newSigner(alg: "RS256" | "ES256" | "PS256"): Promise<Signer> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const kid = crypto.randomUUID();
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

/** One HTTP server holding any number of key sets, by path. */
export function startKeyServer() {
  const sets = new Map<string, JWK[]>();
  const hits = new Map<string, number>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const keys = sets.get(path);
      return keys ? Response.json({ keys }) : new Response("not found", { status: 404 });
    },
  });
  trackChild({ kill: () => server.stop(true) });
  return {
    /** A key set at a new path, starting with `signers`. */
    publish(path: string, signers: Signer[]) {
      sets.set(
        path,
        signers.map((s) => s.publicJwk),
      );
      return `http://127.0.0.1:${server.port}${path}`;
    },
    rotateIn(path: string, signer: Signer) {
      sets.get(path)!.push(signer.publicJwk);
    },
    hits: (path: string) => hits.get(path) ?? 0,
  };
}

/** A key-set address that accepts connections and never answers (a provider outage that hangs). */
export function startHangingKeyServer() {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    fetch: () => new Promise<Response>(() => {}),
  });
  trackChild({ kill: () => server.stop(true) });
  return `http://127.0.0.1:${server.port}/jwks`;
}

/** What each provider's settings and tokens look like in the tests. */
export const testProviders = {
  firebase: {
    alg: "RS256",
    settings: { projectId: "demo-game" },
    iss: "https://securetoken.google.com/demo-game",
    aud: "demo-game",
  },
  supabase: {
    alg: "ES256",
    settings: { projectRef: "abcdefghijklmnop" },
    iss: "https://abcdefghijklmnop.supabase.co/auth/v1",
    aud: "authenticated",
  },
  auth0: {
    alg: "RS256",
    settings: { domain: "savepoint-test.eu.auth0.com", audience: "https://api.savepoint.test" },
    iss: "https://savepoint-test.eu.auth0.com/",
    aud: "https://api.savepoint.test",
  },
} as const;

/** A user's token as the provider would issue it, with `overrides` on top (undefined removes a claim). */
export async function mint(
  provider: ProviderName,
  signer: Signer,
  sub: string,
  overrides: JWTPayload = {},
): Promise<string> {
  const p = testProviders[provider];
  const now = Math.floor(Date.now() / 1000);
  const base: JWTPayload = { iss: p.iss, aud: p.aud, sub, iat: now, exp: now + 3600, email: "jane@example.com" };
  if (provider === "firebase")
    Object.assign(base, { auth_time: now - 5, firebase: { sign_in_provider: "google.com" } });
  if (provider === "supabase") Object.assign(base, { role: "authenticated", app_metadata: { provider: "apple" } });
  const claims = Object.fromEntries(Object.entries({ ...base, ...overrides }).filter(([, v]) => v !== undefined));
  return new SignJWT(claims)
    .setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: "JWT" })
    .sign(signer.privateKey);
}

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");

/** Tokens an attacker would try; each must be refused. */
export async function hostileTokens(provider: ProviderName, signer: Signer, sub: string) {
  const p = testProviders[provider];
  const good = await mint(provider, signer, sub);
  const [header, payload, signature] = good.split(".");
  const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
  const stranger = await newSigner(signer.alg as "RS256");
  const now = Math.floor(Date.now() / 1000);
  return {
    invalid: {
      expired: await mint(provider, signer, sub, { iat: now - 7200, exp: now - 3600 }),
      notYetValid: await mint(provider, signer, sub, { nbf: now + 3600 }),
      // Issued a day from now: beyond the 60 s of clock skew allowed for exp as well.
      issuedInTheFuture: await mint(provider, signer, sub, { iat: now + 86_400, exp: now + 90_000 }),
      wrongKey: await mint(provider, { ...stranger, kid: signer.kid }, sub),
      unknownKey: await mint(provider, stranger, sub),
      algNone: `${b64({ alg: "none", typ: "JWT" })}.${payload}.`,
      // Algorithm confusion: HMAC keyed with the public key a verifier might hold.
      hs256WithPublicKey: await new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256", kid: signer.kid })
        .sign(new TextEncoder().encode(JSON.stringify(signer.publicJwk))),
      noExp: await mint(provider, signer, sub, { exp: undefined }),
      noSub: await mint(provider, signer, "", { sub: undefined }),
      tampered: `${header}.${b64({ ...claims, sub: "someone-else" })}.${signature}`,
      embeddedKey: await new SignJWT(claims)
        .setProtectedHeader({ alg: signer.alg, kid: signer.kid, jwk: stranger.publicJwk })
        .sign(stranger.privateKey),
      garbage: "not-a-token",
    } as Record<string, string>,
    mismatch: {
      wrongIssuer: await mint(provider, signer, sub, { iss: p.iss.replace("https://", "https://other-") }),
      wrongAudience: await mint(provider, signer, sub, { aud: "someone-elses-project" }),
    } as Record<string, string>,
  };
}
