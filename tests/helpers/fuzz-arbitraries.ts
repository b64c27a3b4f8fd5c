import { createHmac, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import fc from "fast-check";
import type { Auth, Route } from "../../shared/contract/route.ts";
import { allRoutes } from "../../shared/contract/routes.ts";
import { admin, newAccount, newTenant } from "./api.ts";
import { adminToken, type Deployment } from "./deployments.ts";

/**
 * Generators for tests/api/fuzz.test.ts. A generated case is symbolic (ids, credentials and versions
 * are references to a fixture), so it stays printable and shrinkable; `render` turns it into bytes.
 */

/**
 * Settings of the deployments the fuzzer runs on. The peer (an in-process request has none, so it is
 * "unknown") is a trusted proxy, so generated X-Forwarded-For values are parsed and name the client.
 * With a webhook secret, Stripe deliveries are verified (and some generated ones are signed) instead
 * of all answering 503.
 */
const stripeSecret = "whsec_fuzz_0123456789abcdef0123456789abcdef";
// The fuzzer sends thousands of wrong admin tokens from a few addresses: with the default limit its own
// fixtures would be refused 429 (the limit has its own tests, tests/api/edge.test.ts).
export const fuzzEnv = {
  SAVEPOINT_TRUSTED_PROXIES: "127.0.0.1,::1,unknown",
  STRIPE_WEBHOOK_SECRET: stripeSecret,
  SAVEPOINT_ADMIN_FAILURES_PER_MINUTE: "1000000",
};

/** Real ids and credentials one route's property runs against. */
export interface Fixture {
  key: string;
  /** A runtime key of another tenant: its sessions must not reach this tenant's accounts. */
  foreignKey: string;
  adminToken: string;
  accountId: string;
  session: string;
  /** The id (not the token) of that session, for the operator's revoke route. */
  sessionId: string;
  otherAccountId: string;
  otherSession: string;
  slotId: string;
  archivedSlotId: string;
  /**
   * A second workspace and its project: operator routes and Stripe events change their plan,
   * billing, keys, policy, limits and identity providers, never those the runtime key belongs to.
   */
  workspaceId: string;
  projectId: string;
  /** A key the revoke route may revoke without locking the fuzzer out. */
  spareKeyId: string;
  /** An unused transfer code of the account, or a made-up one where none could be made. */
  transferCode: string;
  /** Current versions, so generated baseVersions land near them and reach the write path. */
  versions: { account: number; slot: number };
  /** Signs tokens of the Firebase project the runtime key's environment trusts (see fuzzTenant). */
  tokenKey: KeyObject;
}
type RefName = Exclude<keyof Fixture, "versions" | "tokenKey">;

// Markers inside generated values. Each prints as a short call, so a shrunk counterexample reads well.
export class Ref {
  constructor(readonly name: RefName) {}
  [fc.toStringMethod]() {
    return `ref(${this.name})`;
  }
}
/** A baseVersion relative to the fixture's current version. */
export class Base {
  constructor(
    readonly of: "account" | "slot",
    readonly offset: number,
  ) {}
  [fc.toStringMethod]() {
    return `base(${this.of}${this.offset < 0 ? "" : "+"}${this.offset})`;
  }
}
/** JSON text sent verbatim: numbers JSON.stringify cannot produce (1e309, -0, 1e-400), malformed JSON. */
export class Raw {
  constructor(readonly text: string) {}
  [fc.toStringMethod]() {
    return `raw(${JSON.stringify(this.text)})`;
  }
}
export class Long {
  constructor(readonly length: number) {}
  [fc.toStringMethod]() {
    return `long(${this.length})`;
  }
}
/** Nesting built as text: JSON.stringify itself would overflow the stack on the deepest ones. */
export class Deep {
  constructor(
    readonly depth: number,
    readonly kind: "object" | "array",
  ) {}
  [fc.toStringMethod]() {
    return `deep(${this.depth}, ${this.kind})`;
  }
}
/** A string whose bytes are not valid UTF-8. */
export class BadUtf8 {
  constructor(readonly bytes: number[]) {}
  [fc.toStringMethod]() {
    return `badUtf8(${this.bytes.map((b) => b.toString(16)).join(" ")})`;
  }
}
/** Unix time, `offset` seconds from when the case is sent. */
export class Now {
  constructor(readonly offset: number) {}
  [fc.toStringMethod]() {
    return `now(${this.offset < 0 ? "" : "+"}${this.offset})`;
  }
}
/** A JWT of the fuzzer's identity provider: signed with its key, or with a made-up signature. */
export class Token {
  constructor(
    readonly header: unknown,
    readonly claims: unknown,
    readonly signed: boolean,
  ) {}
  [fc.toStringMethod]() {
    return `token(${fc.stringify(this.header)}, ${fc.stringify(this.claims)}, ${this.signed ? "signed" : "unsigned"})`;
  }
}
/** A Stripe-Signature header over the body as sent, signed `age` seconds ago. */
export class StripeSignature {
  constructor(readonly age: number) {}
  [fc.toStringMethod]() {
    return `stripeSignature(${this.age}s ago)`;
  }
}
/** An object as ordered entries: keys like `__proto__` stay own keys, and duplicates are possible. */
export class Obj {
  constructor(readonly entries: [string, unknown][]) {}
  [fc.toStringMethod]() {
    return `obj(${fc.stringify(this.entries)})`;
  }
}

export interface FuzzCase {
  method: string;
  /** Path parts; a Ref is an id from the fixture, a string is sent verbatim (already encoded or not). */
  path: (string | Ref)[];
  query: string;
  headers: [string, HeaderPart[]][];
  /** Absent: no body. */
  body?: unknown;
}
type HeaderPart = string | Ref | StripeSignature;

const ref = (name: RefName) => new Ref(name);
const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });

// ---- values -------------------------------------------------------------------------------------

// The keys that reach prototypes and query operators come first: they are the ones that have broken
// things. Each generated object has only a few keys, so a long list would rarely pick any one of them.
const key = fc.oneof(
  w(4, fc.constantFrom("__proto__", "constructor")),
  w(2, fc.constantFrom("prototype", "toString", "hasOwnProperty", "valueOf")),
  w(2, fc.constantFrom("$where", "$set", "a.b", ".", "", "é", "日本語", "😀", "\u0000", "\ud800", "k".repeat(300))),
  w(1, fc.string({ maxLength: 6 })),
);

const oddNumber = fc
  .constantFrom(
    "1e309",
    "-1e309",
    "-0",
    "1e-400",
    "0.1e-999",
    "123456789012345678901234567890",
    "9007199254740993",
    "1E+2",
    "-0.0",
    "1.7976931348623157e308",
    "5e-324",
  )
  .map((t) => new Raw(t));
// Just under and over the 16 KiB and 256 KiB field limits, and over the 1 MiB body cap.
const long = fc.constantFrom(1_000, 16_000, 16_400, 260_000, 262_200, 1_100_000).map((n) => new Long(n));
const deep = fc
  .tuple(fc.constantFrom(8, 255, 256, 257, 300, 5_000, 40_000), fc.constantFrom("object" as const, "array" as const))
  .map(([n, k]) => new Deep(n, k));
const badUtf8 = fc
  .constantFrom<number[]>(
    [0xff],
    [0xc0, 0xaf],
    [0xed, 0xa0, 0x80],
    [0xe2, 0x82],
    [0x80],
    [0xf8, 0x88, 0x80, 0x80, 0x80],
  )
  .map((b) => new BadUtf8(b));

// Each long, deep or invalid leaf refuses the whole request, so they are rare enough to let most
// hostile objects through to the services.
const leaf = fc.oneof(
  w(8, fc.jsonValue({ maxDepth: 2 })),
  w(2, oddNumber),
  w(1, fc.constantFrom(null, "", 0, -1, true, [], {})),
  w(1, fc.oneof(long, deep, badUtf8)),
);

/** Any JSON value, hostile keys and leaves included. */
export const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown; obj: Obj; arr: unknown[] }>((tie) => ({
  v: fc.oneof({ depthSize: "small", withCrossShrink: true }, w(3, leaf), w(2, tie("obj")), w(1, tie("arr"))),
  obj: fc.array(fc.tuple(key, tie("v")), { maxLength: 4 }).map((e) => new Obj(e)),
  arr: fc.array(tie("v"), { maxLength: 3 }),
})).v;

// Values of a hostile key: null (which a patch treats as "remove") and other plain values first.
const small = fc.oneof(
  w(2, fc.constant(null)),
  w(2, fc.constantFrom<unknown>(0, "", true, {}, [], "x")),
  w(2, fc.jsonValue({ maxDepth: 1 })),
  w(1, oddNumber),
  w(1, value),
);

/** What a free-form field (data, slotInfo, accountData, accountDataPatch) gets: mostly objects. */
const freeForm = fc.oneof(
  w(3, fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })),
  w(
    5,
    fc.array(fc.tuple(key, small), { minLength: 1, maxLength: 3 }).map((e) => new Obj(e)),
  ),
  w(1, deep),
  w(1, value),
);

const version = (of: "account" | "slot") =>
  fc.oneof(
    w(
      8,
      fc.oneof(w(3, fc.constant(0)), w(1, fc.integer({ min: -2, max: 2 }))).map((o) => new Base(of, o)),
    ),
    w(1, fc.constantFrom<unknown>(0, -1, 1.5, "1", null, true, [], {}, 2 ** 31, 2 ** 53, 2 ** 64)),
    w(1, oddNumber),
  );

const providerName = fc.constantFrom("firebase", "supabase", "auth0");
// Three base64url parts, so a token gets past "is it a JWT" to header and claim checks.
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
const jwtLike = fc
  .tuple(
    fc.oneof(
      fc.constantFrom<unknown>({ alg: "RS256", kid: "x" }, { alg: "none" }, { alg: "HS256" }, { alg: "RS256" }),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    fc.oneof(fc.constantFrom<unknown>({ sub: "u1", aud: "x", iss: "x", exp: 4e9 }, {}), fc.jsonValue({ maxDepth: 1 })),
    fc.constantFrom("", "c2ln", "x".repeat(342)),
  )
  .map(([h, p, sig]) => `${b64(h)}.${b64(p)}.${sig}`);

const validSlotId = fc.stringMatching(/^[A-Za-z0-9_.-]{1,64}$/);
const slotIdField = fc.oneof(
  w(6, validSlotId),
  w(1, fc.constant(ref("slotId"))),
  w(1, fc.constant(ref("archivedSlotId"))),
  w(1, fc.constantFrom<unknown>(".", "..", "", "x".repeat(65), "bad id!", "é", 7)),
  w(1, value),
);
const text = (max: number) =>
  fc.oneof(
    w(4, fc.string({ minLength: 1, maxLength: max })),
    w(1, fc.constantFrom<unknown>("", " ", "x".repeat(max + 1), "\u0000", "😀".repeat(60))),
    w(1, value),
  );
const bool = fc.oneof(w(4, fc.boolean()), w(1, value));
const count = fc.oneof(
  w(4, fc.integer({ min: 1, max: 1_000 })),
  w(1, fc.constantFrom<unknown>(0, -1, 1.5, "60")),
  w(1, oddNumber),
);

type Presence = "required" | "optional";
/**
 * An object with the route's fields, each sometimes missing (a required one in `missingOneIn` cases),
 * and sometimes an unknown extra key.
 */
function shaped(fields: Record<string, [fc.Arbitrary<unknown>, Presence]>, missingOneIn = 12): fc.Arbitrary<Obj> {
  const parts = Object.entries(fields).map(([name, [arb, presence]]) =>
    fc.option(
      arb.map((v) => [name, v] as [string, unknown]),
      { nil: undefined, freq: presence === "required" ? missingOneIn : 2 },
    ),
  );
  const extra = fc.oneof(w(9, fc.constant(undefined)), w(1, fc.tuple(key, value)));
  return fc
    .tuple(fc.tuple(...parts), extra)
    .map(([present, x]) => new Obj([...present, ...(x ? [x] : [])].filter((e) => e !== undefined)));
}

// The Firebase project the runtime key's environment trusts; its key set is served by fuzzTenant.
const firebaseProject = "fuzz-game";
const now = (offset: number) => new Now(offset);
// Each claim is right most of the time: a token with one wrong claim is refused, and there are six.
const claim = (right: fc.Arbitrary<unknown>, ...wrong: fc.Arbitrary<unknown>[]) =>
  fc.oneof(w(16, right), ...wrong.map((a) => w(1, a)));
const firebaseClaims = shaped(
  {
    iss: [claim(fc.constant(`https://securetoken.google.com/${firebaseProject}`), text(60)), "required"],
    aud: [claim(fc.constant(firebaseProject), fc.constant([firebaseProject, "other"]), value), "required"],
    sub: [
      claim(
        fc.stringMatching(/^[A-Za-z0-9]{1,28}$/),
        fc.constantFrom("__proto__", "constructor", "u|x", " ", "x".repeat(2_000), "😀", "\u0000", "\ud800"),
        value,
      ),
      "required",
    ],
    iat: [claim(fc.constant(now(-10)), fc.constant(now(3_600)), value), "required"],
    exp: [claim(fc.constant(now(600)), fc.constant(now(-600)), oddNumber, value), "required"],
    auth_time: [claim(fc.constant(now(-10)), fc.constant(now(3_600)), value), "required"],
    email: [fc.oneof(fc.emailAddress(), text(100)), "optional"],
    firebase: [fc.oneof(shaped({ sign_in_provider: [text(30), "required"] }), value), "optional"],
  },
  60,
);
const tokenHeader = fc.oneof(
  w(8, fc.constant<unknown>({ alg: "RS256", kid: "fuzz", typ: "JWT" })),
  w(
    2,
    fc.constantFrom<unknown>(
      { alg: "RS256" },
      { alg: "RS256", kid: "other" },
      { alg: "none" },
      { alg: "HS256", kid: "fuzz" },
      { alg: "RS256", kid: "fuzz", jku: "http://127.0.0.1:1/" },
      { alg: "RS256", kid: "__proto__" },
    ),
  ),
  w(1, value),
);
const signedToken = fc
  .tuple(tokenHeader, firebaseClaims, fc.oneof(w(8, fc.constant(true)), w(1, fc.constant(false))))
  .map(([h, c, signed]) => new Token(h, c, signed));

// Stripe events about the spare workspace, of the types billing reads, with a few customers and
// subscriptions so that events about the same ones meet.
const stripeObject = shaped({
  id: [fc.constantFrom("sub_1", "sub_2", "in_1", "cs_1"), "optional"],
  customer: [
    fc.oneof(w(4, fc.constantFrom("cus_1", "cus_2")), w(1, fc.constant({ id: "cus_1" })), w(1, value)),
    "optional",
  ],
  client_reference_id: [fc.oneof(w(4, fc.constant(ref("workspaceId"))), w(1, value)), "optional"],
  metadata: [
    fc.oneof(w(4, shaped({ workspaceId: [fc.constant(ref("workspaceId")), "required"] })), w(1, value)),
    "optional",
  ],
  status: [
    fc.oneof(fc.constantFrom("active", "trialing", "past_due", "unpaid", "canceled", "incomplete"), text(20)),
    "optional",
  ],
  items: [fc.oneof(fc.constant({ data: [{ price: { id: "price_x" } }] }), value), "optional"],
  subscription: [fc.oneof(fc.constantFrom("sub_1", "sub_2"), value), "optional"],
});
const stripeEvent = shaped({
  id: [fc.oneof(w(4, fc.stringMatching(/^evt_[A-Za-z0-9]{1,8}$/)), w(1, text(30))), "required"],
  type: [
    fc.oneof(
      w(
        6,
        fc.constantFrom(
          "checkout.session.completed",
          "customer.subscription.created",
          "customer.subscription.updated",
          "customer.subscription.deleted",
          "invoice.paid",
          "invoice.payment_failed",
        ),
      ),
      w(1, text(40)),
    ),
    "required",
  ],
  created: [fc.oneof(w(6, fc.constant(now(0))), w(1, fc.constant(now(-86_400))), w(1, value)), "required"],
  data: [fc.oneof(w(6, shaped({ object: [stripeObject, "required"] })), w(1, value)), "required"],
});

const slotBody = shaped({
  slotId: [slotIdField, "required"],
  slotInfo: [freeForm, "optional"],
  data: [freeForm, "required"],
});

/** Bodies with the shape each route expects, so most cases get past the 400 wall. */
const shapes: Record<string, fc.Arbitrary<Obj>> = {
  createAccount: shaped({
    playerRef: [text(256), "optional"],
    externalAccountRef: [
      fc.oneof(shaped({ provider: [text(64), "required"], subject: [text(256), "required"] }), value),
      "optional",
    ],
    accountData: [freeForm, "optional"],
    slot: [fc.oneof(w(4, slotBody), w(1, value)), "optional"],
    deviceLabel: [text(80), "optional"],
  }),
  createSlot: slotBody,
  syncSlot: shaped({
    baseVersion: [version("slot"), "required"],
    slotInfo: [freeForm, "optional"],
    data: [freeForm, "required"],
  }),
  // Exactly one of accountData and accountDataPatch is valid: make that the common case.
  syncAccountData: fc
    .tuple(
      shaped({ baseVersion: [version("account"), "required"] }),
      fc.oneof(
        w(4, fc.constant(["accountData"])),
        w(4, fc.constant(["accountDataPatch"])),
        w(1, fc.constant(["accountData", "accountDataPatch"])),
        w(1, fc.constant([])),
      ),
      freeForm,
      freeForm,
    )
    .map(
      ([o, fields, a, b]) => new Obj([...o.entries, ...fields.map((f, i): [string, unknown] => [f, i === 0 ? a : b])]),
    ),
  createTransferCode: shaped({
    deviceLabel: [text(80), "optional"],
    ttlSeconds: [fc.oneof(w(4, fc.integer({ min: -100, max: 4_000 })), w(1, oddNumber), w(1, value)), "optional"],
  }),
  consumeTransferCode: shaped({
    transferCode: [fc.oneof(w(1, fc.constant(ref("transferCode"))), w(3, text(64))), "required"],
    deviceLabel: [text(80), "optional"],
  }),
  exchangeAuthSession: shaped({
    provider: [fc.oneof(w(6, fc.constant("firebase")), w(1, providerName), w(1, text(20))), "required"],
    token: [fc.oneof(w(6, signedToken), w(1, jwtLike), w(1, text(200))), "required"],
    deviceLabel: [text(80), "optional"],
  }),
  adminSetAuthProvider: shaped({
    enabled: [bool, "required"],
    projectId: [fc.oneof(fc.stringMatching(/^[a-z0-9-]{1,64}$/), text(64)), "optional"],
    projectRef: [fc.oneof(fc.stringMatching(/^[a-z0-9]{1,64}$/), text(64)), "optional"],
    domain: [fc.oneof(fc.stringMatching(/^[A-Za-z0-9.-]{1,253}$/), text(253)), "optional"],
    audience: [text(512), "optional"],
    // Loopback port 1 refuses at once: a key-set fetch fails fast and never leaves the machine.
    jwksUrl: [
      fc.oneof(
        fc.constantFrom("http://127.0.0.1:1/jwks", "https://127.0.0.1:1/", "http://[::1]:1/.well-known/jwks.json"),
        fc.constantFrom<unknown>("ftp://127.0.0.1/", "javascript:alert(1)", "http://", "not a url", ""),
      ),
      "optional",
    ],
  }),
  adminUpdateWorkspace: shaped({
    plan: [fc.oneof(fc.constantFrom("free", "starter", "growth", "pro", "self_hosted"), value), "optional"],
    billingStatus: [
      fc.oneof(
        fc.constantFrom(
          "active",
          "trialing",
          "past_due",
          "unpaid",
          "canceled",
          "incomplete",
          "incomplete_expired",
          "paused",
        ),
        value,
      ),
      "optional",
    ],
  }),
  adminSetSettings: shaped({
    transferCodeTtlSeconds: [
      fc.oneof(w(4, fc.integer({ min: 0, max: 4_000 })), w(1, oddNumber), w(1, value)),
      "optional",
    ],
    rateLimits: [
      fc.oneof(
        w(
          4,
          shaped({
            accountCreationsPerIpPerMinute: [count, "optional"],
            authExchangesPerIpPerMinute: [count, "optional"],
            sessionRequestsPerMinute: [count, "optional"],
            transferFailuresPerKeyPerMinute: [count, "optional"],
          }),
        ),
        w(1, value),
      ),
      "optional",
    ],
    sessionIdleDays: [fc.oneof(w(4, fc.integer({ min: -1, max: 4_000 })), w(1, oddNumber), w(1, value)), "optional"],
  }),
  adminPublishGameConfig: shaped({ data: [freeForm, "required"], enabled: [bool, "optional"] }),
  adminRestoreAccountData: shaped({
    version: [fc.oneof(w(4, fc.integer({ min: 0, max: 5 })), w(1, oddNumber), w(1, value)), "required"],
  }),
  adminRestoreSlot: shaped({
    version: [fc.oneof(w(4, fc.integer({ min: 0, max: 5 })), w(1, oddNumber), w(1, value)), "required"],
  }),
  restoreSlot: shaped({
    version: [fc.oneof(w(4, fc.integer({ min: 0, max: 5 })), w(1, oddNumber), w(1, value)), "required"],
    baseVersion: [version("slot"), "required"],
  }),
  restoreAccountData: shaped({
    version: [fc.oneof(w(4, fc.integer({ min: 0, max: 5 })), w(1, oddNumber), w(1, value)), "required"],
    baseVersion: [version("account"), "required"],
  }),
  stripeWebhook: stripeEvent,
  adminCreateWorkspace: shaped({
    name: [text(100), "required"],
    plan: [fc.oneof(fc.constantFrom("free", "starter", "growth", "pro", "self_hosted"), value), "optional"],
  }),
  adminCreateProject: shaped({ name: [text(100), "required"] }),
  adminCreateRuntimeKey: shaped({ label: [text(100), "optional"] }),
  adminSetSyncPolicy: shaped({
    minRemoteSyncIntervalSeconds: [count, "optional"],
    forceSyncCooldownSeconds: [count, "optional"],
    syncOnAppBackground: [bool, "optional"],
    syncOnAppForeground: [bool, "optional"],
    syncOnReconnect: [bool, "optional"],
    maxQueuedLocalSnapshots: [count, "optional"],
  }),
};

const malformed = fc
  .constantFrom(
    "{",
    '{"a":',
    "[1,]",
    "{'a':1}",
    "nul",
    '"open',
    '{"a":1}}',
    "\u0000",
    "NaN",
    '{"a":NaN}',
    "   ",
    "\ufeff{}",
    "{}x",
    "1 2",
    '{"a":1,}',
    '{"\\ud800":1}',
    '"\\u12"',
  )
  .map((t) => new Raw(t));

/** Bodies for a route: mostly its own shape, then anything, malformed text, bad bytes, empty. */
export function bodyFor(r: { method: string; operationId?: string }): fc.Arbitrary<unknown> {
  if (r.method === "GET" || r.method === "HEAD") return fc.constant(undefined);
  const shape = r.operationId ? shapes[r.operationId] : undefined;
  const emptyish = fc.constantFrom(undefined, new Raw(""));
  const hostile = [
    w(2, value),
    w(1, malformed),
    w(
      1,
      fc.uint8Array({ maxLength: 40 }).map((b) => new BadUtf8([...b])),
    ),
  ];
  return shape ? fc.oneof(w(12, shape), w(1, emptyish), ...hostile) : fc.oneof(w(4, emptyish), ...hostile);
}

// ---- path and query -----------------------------------------------------------------------------

const hostileId = (prefix: string) =>
  fc.oneof(
    w(
      4,
      fc.constantFrom(
        `${prefix}doesnotexist`,
        prefix,
        "",
        ".",
        "..",
        "%2e%2e",
        "%2F",
        "%ZZ",
        "%",
        "%00",
        "%C0%AF",
        "%E2%80%AE",
        "é",
        encodeURIComponent("😀"),
        `${prefix}${"a".repeat(2_000)}`,
        `${prefix}x%20y`,
        `${prefix}x;y`,
        `${prefix}a/../${prefix}b`,
        "?x=1",
        "#x",
        "%3F",
      ),
    ),
    w(1, fc.string({ maxLength: 12 }).map(encodeURIComponent)),
    w(1, fc.string({ maxLength: 12 })),
  );

const ids: Record<string, fc.Arbitrary<string | Ref>> = {
  accountId: fc.oneof(
    w(10, fc.constant(ref("accountId"))),
    w(1, fc.constant(ref("otherAccountId"))),
    w(2, hostileId("acc_")),
  ),
  slotId: fc.oneof(
    w(10, fc.constant(ref("slotId"))),
    w(1, fc.constant(ref("archivedSlotId"))),
    w(1, validSlotId),
    w(2, hostileId("")),
  ),
  workspaceId: fc.oneof(w(6, fc.constant(ref("workspaceId"))), w(1, hostileId("wsp_"))),
  projectId: fc.oneof(w(6, fc.constant(ref("projectId"))), w(1, hostileId("prj_"))),
  env: fc.oneof(w(6, fc.constantFrom("stage", "prod")), w(1, hostileId(""))),
  keyId: fc.oneof(w(6, fc.constant(ref("spareKeyId"))), w(1, hostileId("key_"))),
  sessionId: fc.oneof(w(6, fc.constant(ref("sessionId"))), w(1, hostileId("ses_"))),
  provider: fc.oneof(w(6, providerName), w(1, hostileId(""))),
  version: fc.oneof(
    w(6, fc.integer({ min: 1, max: 6 }).map(String)),
    w(1, fc.constantFrom("0", "-1", "1.5", "1e1", "0x1", " 1", "99999999999", "NaN")),
    w(1, hostileId("")),
  ),
};
// A parameter of a route added after this file: plausible ids and hostile ones.
const anyId = fc.oneof(w(2, fc.stringMatching(/^[a-z]{3,4}_[A-Za-z0-9]{1,20}$/)), w(1, hostileId("")));

// The operator's account view pages with ?offset=&limit=; other routes must ignore them.
const pageNumber = fc.oneof(
  fc.nat({ max: 300 }).map(String),
  fc.constantFrom(
    "",
    " ",
    "-1",
    "0",
    "1.5",
    "1e3",
    "1e-400",
    "1e309",
    "0x10",
    "9007199254740993",
    "99999999999",
    "NaN",
    "Infinity",
    "%00",
    "[]",
  ),
);
const paging = fc
  .tuple(fc.option(pageNumber), fc.option(pageNumber))
  .map(([o, l]) => `?${[o === null ? "" : `offset=${o}`, l === null ? "" : `limit=${l}`].filter(Boolean).join("&")}`);
// Restore-point pages take ?limit=&cursor=; a cursor is opaque, so made-up ones must be refused, not crash.
const cursorText = fc.oneof(
  fc.constantFrom("", "x", "bm9wZQ", "MTIzNDU2Nzg5MDEyMzQ1Ni4x", "%00", "=", "a.b.c"),
  fc.base64String({ maxLength: 40 }).map(encodeURIComponent),
);
const historyPaging = fc
  .tuple(fc.option(pageNumber), fc.option(cursorText))
  .map(([l, c]) => `?${[l === null ? "" : `limit=${l}`, c === null ? "" : `cursor=${c}`].filter(Boolean).join("&")}`);

export const query = fc.oneof(
  w(6, fc.constant("")),
  w(1, paging),
  w(1, historyPaging),
  w(
    3,
    fc.constantFrom(
      "?_=123",
      "?a=1&a=2",
      "?__proto__=x",
      "?constructor[prototype][x]=1",
      "?%ZZ=1",
      "?x=%ZZ",
      "?x=%E0%A4%A",
      "?=",
      "?&&",
      "?a",
      "?accountId=acc_x",
      "?slotId=..",
      "?a[b]=1",
      `?a=${"x".repeat(2_000)}`,
      "?%00=%00",
      "?é=ü",
    ),
  ),
  w(
    1,
    fc.webQueryParameters().map((q) => `?${q}`),
  ),
);

/** The route's path with generated ids. */
export function pathFor(r: Route): fc.Arbitrary<(string | Ref)[]> {
  const segments = r.path
    .split("/")
    .slice(1)
    .map((s) => (s.startsWith(":") ? (ids[s.slice(1)] ?? anyId) : fc.constant(s)));
  return fc.tuple(...segments).map((parts) => parts.flatMap((p) => ["/", p]));
}

// ---- headers ------------------------------------------------------------------------------------

// Headers carry bytes, not text: printable ASCII and Latin-1, which is what a client can send. Long
// values stay near 2 KB, so that all of a request's headers stay under Bun's own 16 KiB limit (over
// it, Bun answers 431 before the app sees the request).
const headerText = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c < 0x7f || c > 0x9f)
    .map((c) => String.fromCharCode(c)),
  maxLength: 60,
});
type Value = HeaderPart[];
type Header = [string, Value];
const none = fc.constant<Header[]>([]);
const one = (name: string, ...values: (string | Ref)[][]) =>
  fc.constantFrom(...values.map((v): Header[] => [[name, v]]));

function authorization(primary: RefName): fc.Arbitrary<Header[]> {
  const p = ref(primary);
  const other = ref(primary === "adminToken" ? "key" : "adminToken");
  return fc.oneof(
    w(40, one("authorization", ["Bearer ", p])),
    w(1, none),
    w(
      3,
      one(
        "authorization",
        ["bearer ", p],
        ["BEARER   ", p],
        ["Bearer ", p, " x"],
        ["Bearer ", p, ","],
        ["Basic ", p],
        [p],
        ["Bearer spk_stage_wrong"],
        ["Bearer "],
        ["Bearer"],
        ["Bearer ", ref("foreignKey")],
        ["Bearer ", other],
        [`Bearer spk_${"x".repeat(2_000)}`],
        ["Bearer ", p, "\t"],
      ),
    ),
    // Two Authorization headers: a fetch client folds them into one "a, b" value.
    w(
      1,
      fc.constantFrom<Header[]>(
        [
          ["authorization", ["Bearer ", p]],
          ["authorization", ["Bearer ", p]],
        ],
        [
          ["authorization", ["Bearer ", p]],
          ["authorization", ["Bearer ", other]],
        ],
      ),
    ),
    w(
      1,
      headerText.map((t): Header[] => [["authorization", [t]]]),
    ),
  );
}

const sessionValue: fc.Arbitrary<Value> = fc.oneof(
  w(30, fc.constant<Value>([ref("session")])),
  w(1, fc.constant<Value>([ref("otherSession")])),
  w(
    1,
    fc.constantFrom<Value>(
      ["sps_wrong"],
      [""],
      ["x".repeat(2_000)],
      [ref("session"), " "],
      [ref("session"), ", ", ref("otherSession")],
    ),
  ),
  w(
    1,
    headerText.map((t): Value => [t]),
  ),
);

function session(auth: Auth): fc.Arbitrary<Header[]> {
  const sent = sessionValue.map((v): Header[] => [["x-service-account-session", v]]);
  if (auth === "session") return fc.oneof(w(30, sent), w(1, none));
  if (auth === "optionalSession") return fc.oneof(sent, none);
  return fc.oneof(w(6, none), w(1, sent));
}

const accountIdValue = fc.oneof(
  fc.constant<Value>([ref("accountId")]),
  fc.constant<Value>([ref("otherAccountId")]),
  headerText.map((t): Value => [t]),
);
/** X-Service-Account-ID: where the path names no account, a session route reads it from there. */
const accountIdHeader = fc.oneof(
  w(20, fc.constant<Header[]>([["x-service-account-id", [ref("accountId")]]])),
  w(2, fc.constant<Header[]>([["x-persistly-account-id", [ref("accountId")]]])),
  w(1, none),
  w(
    1,
    accountIdValue.map((v): Header[] => [["x-service-account-id", v]]),
  ),
);

/** X-Persistly-Account-Session / -ID: compatibility aliases, alone or alongside the real headers. */
const aliases = fc.oneof(
  w(8, none),
  w(
    1,
    sessionValue.map((v): Header[] => [["x-persistly-account-session", v]]),
  ),
  w(
    1,
    fc
      .tuple(fc.constantFrom("x-service-account-id", "x-persistly-account-id"), accountIdValue)
      .map(([name, v]): Header[] => [[name, v]]),
  ),
  w(
    1,
    fc.tuple(accountIdValue, accountIdValue).map(([a, b]): Header[] => [
      ["x-service-account-id", a],
      ["x-persistly-account-id", b],
    ]),
  ),
);

const requestId = fc.oneof(
  w(3, none),
  w(
    2,
    fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/).map((id): Header[] => [["x-request-id", [id]]]),
  ),
  w(
    1,
    fc
      .oneof(headerText, fc.constantFrom("a".repeat(129), "bad id", "é", ""))
      .map((id): Header[] => [["x-request-id", [id]]]),
  ),
);

const contentType = fc.oneof(
  w(30, one("content-type", ["application/json"])),
  w(1, none),
  w(
    2,
    one(
      "content-type",
      ["text/plain"],
      ["application/json; charset=utf-16"],
      ["application/vnd.api+json"],
      ["APPLICATION/JSON"],
      ["application/jsonx"],
      ["application/x-www-form-urlencoded"],
      ["multipart/form-data; boundary=x"],
      ["application/json, text/plain"],
      ["*/*"],
      [";"],
      ["application/json;;;"],
    ),
  ),
  w(
    1,
    headerText.map((t): Header[] => [["content-type", [t]]]),
  ),
);

// Only the peer's own X-Forwarded-For counts, and fuzzEnv trusts it: hostile lists get parsed, and
// most requests name a client of their own, so per-client limits leave room for the routes' work.
const forwardedFor = fc.oneof(
  w(2, none),
  w(
    4,
    fc
      .oneof(
        fc.ipV4(),
        fc.ipV6(),
        fc.array(fc.oneof(fc.ipV4(), fc.ipV6()), { minLength: 2, maxLength: 4 }).map((ips) => ips.join(", ")),
      )
      .map((v): Header[] => [["x-forwarded-for", [v]]]),
  ),
  w(
    1,
    one(
      "x-forwarded-for",
      [""],
      [","],
      [" , ,"],
      ["unknown"],
      ["::ffff:10.0.0.1"],
      ["127.0.0.1"],
      ["1.2.3.4, 127.0.0.1"],
      [Array.from({ length: 150 }, (_, i) => `10.0.${i >> 8}.${i & 255}`).join(",")],
    ),
  ),
  w(
    1,
    headerText.map((t): Header[] => [["x-forwarded-for", [t]]]),
  ),
);

// Stripe deliveries: mostly signed over the exact body, else stale, made up or missing.
const stripeSignatureHeader = fc.oneof(
  w(6, fc.constant<Header[]>([["stripe-signature", [new StripeSignature(0)]]])),
  w(1, fc.constant<Header[]>([["stripe-signature", [new StripeSignature(600)]]])),
  w(1, fc.constant<Header[]>([["stripe-signature", [new StripeSignature(-600)]]])),
  w(
    1,
    headerText.map((t): Header[] => [["stripe-signature", [t]]]),
  ),
  w(1, none),
);

// Idempotency-Key: mostly absent; few distinct values, so replays and "reused with another body" occur.
const idempotencyKey = fc.oneof(
  w(6, none),
  w(2, one("idempotency-key", ["k1"], ["k2"], ["retry-0001"])),
  w(1, one("idempotency-key", [""], ["k".repeat(255)], ["k".repeat(256)], ["é"], [" spaced key "])),
  w(
    1,
    headerText.map((t): Header[] => [["idempotency-key", [t]]]),
  ),
);

const acceptEncoding = fc.oneof(
  w(6, none),
  w(1, one("accept-encoding", ["gzip"], ["br, gzip;q=0"], ["*"], ["identity;q=0"], ["x".repeat(500)])),
);

// A lying Content-Length only makes sense in-process: over a socket it would break HTTP framing.
const contentLength = fc.oneof(
  w(30, none),
  w(1, one("content-length", ["-1"], ["abc"], ["99999999999"], ["0"], ["1e3"], ["1048577"])),
);

/**
 * Headers for a route of this kind. `accountInPath` false: the account goes in X-Service-Account-ID;
 * `signed`: the route takes a Stripe-Signature.
 */
export function headersFor(
  auth: Auth,
  options: { inProcess: boolean },
  route: { accountInPath?: boolean; signed?: boolean } = {},
): fc.Arbitrary<Header[]> {
  const account =
    route.accountInPath === false && (auth === "session" || auth === "optionalSession") ? accountIdHeader : aliases;
  return fc
    .tuple(
      authorization(auth === "admin" ? "adminToken" : "key"),
      session(auth),
      account,
      requestId,
      contentType,
      forwardedFor,
      idempotencyKey,
      acceptEncoding,
      route.signed ? stripeSignatureHeader : none,
      options.inProcess ? contentLength : none,
    )
    .map((groups) => groups.flat());
}

// ---- routes -------------------------------------------------------------------------------------

/** Routes the gateway serves: the ones with a bus subject, and /healthz. */
const routes: readonly Route[] = allRoutes;
export const implemented = routes.filter((r) => r.subject || r.operationId === "health");
const unimplemented = routes.filter((r) => !r.subject && r.operationId !== "health");
// The router ignores one trailing slash.
const pattern = (path: string) => new RegExp(`^${path.replace(/:[^/]+/g, "[^/]+")}/?$`);

const routesAt = (method: string, pathname: string) =>
  routes.filter(
    (r) => (r.method === method || (method === "HEAD" && r.method === "GET")) && pattern(r.path).test(pathname),
  );

/** Whether 501 not_implemented is a right answer: only for a contract route no service serves yet. */
export const mayBeUnimplemented = (method: string, pathname: string) =>
  routesAt(method, pathname).some((r) => unimplemented.includes(r));

/** A 409 that is the route's own conflict answer (the server's state), not an error. */
const isConflictAnswer = (method: string, pathname: string, body: unknown) =>
  routesAt(method, pathname).some((r) => r.conflict?.safeParse(body).success);

export function caseFor(r: Route, options: { inProcess: boolean }): fc.Arbitrary<FuzzCase> {
  return fc.record({
    method: fc.constant(r.method),
    path: pathFor(r),
    query,
    headers: headersFor(r.auth, options, {
      accountInPath: r.path.includes(":accountId"),
      signed: r.operationId === "stripeWebhook",
    }),
    body: bodyFor(r),
  });
}

const sampleIds: Record<string, string> = {
  accountId: "acc_x",
  slotId: "s",
  saveId: "save-1",
  version: "1",
  workspaceId: "wsp_x",
  projectId: "prj_x",
  env: "stage",
  keyId: "key_x",
  sessionId: "ses_x",
};
const knownPaths = allRoutes.map((r) => r.path.replace(/:(\w+)/g, (_, name: string) => sampleIds[name] ?? "x_1"));
const strayPath = fc.oneof(
  w(3, fc.constantFrom(...knownPaths)),
  w(
    3,
    fc.constantFrom(
      "/",
      "//",
      "/api",
      "/api/v1",
      "/api/v1/",
      "/admin/v1",
      "/admin/v1/",
      "/healthz/",
      "/HEALTHZ",
      "/docs",
      "/openapi.json",
      "/api/v1/accounts/../../admin/v1/workspaces",
      "/%",
      "/%ZZ",
      "/api/v1/accounts/%ZZ",
      "/api/v1/accounts/acc_x/slots/%ZZ/sync",
      `/${"a".repeat(2_000)}`,
      "/api/v1/accounts/acc_x/slots/s/sync/extra",
      "/api/v1/accounts/acc_x/slots/s/sync/",
      "/api//v1/accounts",
      "/api/v1/accounts/acc_x/",
      "/webhooks/stripe/",
      "/favicon.ico",
      "/.env",
      "/api/v1/accounts/acc_x/slots/s/%2e%2e/%2e%2e",
      "/docs/assets/standalone.js",
      "/docs/assets/standalone.js?v=x",
      "/docs/assets/",
      "/docs/assets/..%2f..%2fpackage.json",
      "/docs/",
      "/openapi.json/x",
    ),
  ),
  w(1, fc.webPath()),
);

/** Unknown paths, wrong methods, and known paths with hostile everything, for any credential kind. */
export function strayCase(options: { inProcess: boolean }): fc.Arbitrary<FuzzCase> {
  return fc
    .tuple(
      fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "PROPFIND"),
      fc.constantFrom<Auth>("none", "runtimeKey", "session", "admin"),
    )
    .chain(([method, auth]) =>
      fc.record({
        method: fc.constant(method),
        path: strayPath.map((p) => [p]),
        query,
        headers: headersFor(auth, options),
        body: bodyFor({ method }),
      }),
    );
}

// ---- rendering ----------------------------------------------------------------------------------

// A code point no generator produces; after UTF-8 encoding its 4 bytes are swapped for invalid ones.
const sentinel = "\u{10FFFD}";
const sentinelBytes = [0xf4, 0x8f, 0xbf, 0xbd];

function emit(v: unknown, fx: Fixture, bad: number[][]): string {
  if (v instanceof Raw) return v.text;
  if (v instanceof Ref) return JSON.stringify(fx[v.name]);
  if (v instanceof Base) return String(fx.versions[v.of] + v.offset);
  if (v instanceof Now) return String(Math.floor(Date.now() / 1000) + v.offset);
  if (v instanceof Token) return JSON.stringify(jwt(v, fx));
  if (v instanceof Long) return JSON.stringify("x".repeat(v.length));
  if (v instanceof Deep)
    return v.kind === "object"
      ? `${'{"a":'.repeat(v.depth)}1${"}".repeat(v.depth)}`
      : `${"[".repeat(v.depth)}${"]".repeat(v.depth)}`;
  if (v instanceof BadUtf8) {
    bad.push(v.bytes);
    return `"x${sentinel}y"`;
  }
  if (v instanceof Obj) return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${emit(x, fx, bad)}`).join(",")}}`;
  if (Array.isArray(v)) return `[${v.map((x) => emit(x, fx, bad)).join(",")}]`;
  if (v !== null && typeof v === "object") return emit(new Obj(Object.entries(v)), fx, bad);
  return JSON.stringify(v) ?? "null";
}

function jwt(t: Token, fx: Fixture): string {
  // Bytes that are not UTF-8 inside a claim stay the sentinel: base64 carries them as they are.
  const part = (v: unknown) => Buffer.from(emit(v, fx, [])).toString("base64url");
  const signingInput = `${part(t.header)}.${part(t.claims)}`;
  const signature = t.signed
    ? sign("RSA-SHA256", Buffer.from(signingInput), fx.tokenKey).toString("base64url")
    : "c2lnbmF0dXJl";
  return `${signingInput}.${signature}`;
}

function withBadBytes(text: string, bad: number[][]): Uint8Array {
  const utf8 = new TextEncoder().encode(text);
  const out: number[] = [];
  for (let i = 0, n = 0; i < utf8.length; i++) {
    if (sentinelBytes.every((b, j) => utf8[i + j] === b)) {
      out.push(...bad[n++]!);
      i += 3;
    } else out.push(utf8[i]!);
  }
  return new Uint8Array(out);
}

export interface Rendered {
  method: string;
  path: string;
  headers: [string, string][];
  body?: string | Uint8Array;
  /** The body as a reader should see it: truncated, invalid bytes as \xNN. */
  shownBody: string;
}

const clip = (s: string, n = 600) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

export function render(c: FuzzCase, fx: Fixture): Rendered {
  let body: string | Uint8Array | undefined;
  let shownBody = "(none)";
  if (c.body !== undefined) {
    // A bare BadUtf8 body is the bytes alone, not a JSON string around them.
    const bad: number[][] = [];
    if (c.body instanceof BadUtf8) bad.push(c.body.bytes);
    const text = c.body instanceof BadUtf8 ? sentinel : emit(c.body, fx, bad);
    body = bad.length ? withBadBytes(text, bad) : text;
    shownBody = clip(text).replaceAll(sentinel, () =>
      bad
        .shift()!
        .map((b) => `\\x${b.toString(16).padStart(2, "0")}`)
        .join(""),
    );
  }
  const resolve = (parts: HeaderPart[]) =>
    parts
      .map((p) =>
        p instanceof Ref ? fx[p.name] : p instanceof StripeSignature ? stripeSignature(body ?? "", p.age) : p,
      )
      .join("");
  const headers = c.headers.map(([name, v]): [string, string] => [name, resolve(v)]);
  return { method: c.method, path: resolve(c.path) + c.query, headers, body, shownBody };
}

/** Stripe's scheme: `t=<unix time>,v1=<HMAC-SHA256 of "<t>.<body>" with the endpoint secret>`. */
function stripeSignature(body: string | Uint8Array, age: number): string {
  const t = Math.floor(Date.now() / 1000) - age;
  const v1 = createHmac("sha256", stripeSecret).update(`${t}.`).update(body).digest("hex");
  return `t=${t},v1=${v1}`;
}

// ---- sending and checking -----------------------------------------------------------------------

export interface Outcome {
  status: number;
  headers: Headers;
  text: string;
}

/** Sends a rendered case; undefined when no client could send it (the request itself is invalid). */
export async function send(d: Deployment, req: Rendered): Promise<Outcome | Error | undefined> {
  const init = { method: req.method, headers: req.headers, body: req.body };
  try {
    new Request(`http://savepoint.test${req.path}`, init);
  } catch {
    return undefined;
  }
  try {
    const res = await d.request(req.path, init);
    return { status: res.status, headers: res.headers, text: await res.text() };
  } catch (err) {
    return err as Error;
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** What is wrong with an answer: 5xx, a non-2xx outside the envelope, a missing X-Request-Id. */
export function problemsOf(req: Rendered, res: Outcome | Error): string[] {
  if (res instanceof Error) return [`no answer: ${res.message}`];
  const problems: string[] = [];
  const pathname = new URL(`http://savepoint.test${req.path}`).pathname;
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {}
  const error = isPlainObject(body) ? body.error : undefined;

  // A HEAD answer has no body to show its code: the route is all there is to go by.
  const notImplemented =
    res.status === 501 &&
    (req.method === "HEAD" || (isPlainObject(error) && error.code === "not_implemented")) &&
    mayBeUnimplemented(req.method, pathname);
  if (res.status >= 500 && !notImplemented) problems.push(`status ${res.status}`);

  // HTTP gives a HEAD answer no body to hold an envelope.
  const envelopeDue =
    (res.status < 200 || res.status > 299) &&
    req.method !== "HEAD" &&
    !(res.status === 409 && isConflictAnswer(req.method, pathname, body));
  if (envelopeDue) {
    if (!isPlainObject(body) || Object.keys(body).join() !== "error") problems.push("body is not {error: ...}");
    else if (!isPlainObject(error)) problems.push("error is not an object");
    else {
      const extra = Object.keys(error).filter((k) => !["code", "message", "details"].includes(k));
      if (extra.length) problems.push(`error has unknown keys ${extra.join(", ")}`);
      if (typeof error.code !== "string" || error.code === "") problems.push("error.code is not a string");
      if (typeof error.message !== "string") problems.push("error.message is not a string");
      if ("details" in error && !isPlainObject(error.details)) problems.push("error.details is not an object");
    }
  }

  const sentId = req.headers.find(([n]) => n === "x-request-id")?.[1];
  const gotId = res.headers.get("x-request-id");
  if (!gotId) problems.push("no X-Request-Id");
  else if (sentId && /^[A-Za-z0-9._:-]{1,128}$/.test(sentId) && gotId !== sentId)
    problems.push(`X-Request-Id ${gotId} instead of the sane ${sentId} sent`);
  return problems;
}

export function describeFailure(req: Rendered, res: Outcome | Error, problems: string[]): string {
  const answer =
    res instanceof Error
      ? String(res)
      : `${res.status} ${clip(res.text)}\nanswer headers: ${JSON.stringify(Object.fromEntries(res.headers))}`;
  return [
    problems.join("; "),
    `request: ${req.method} ${clip(req.path, 300)}`,
    `headers: ${clip(JSON.stringify(req.headers), 1_000)}`,
    `body: ${req.shownBody}`,
    `answer: ${answer}`,
  ].join("\n");
}

/** After an answer, follow the versions it reports, so later baseVersions stay near the real ones. */
export function track(c: FuzzCase, res: Outcome | Error | undefined, fx: Fixture, operationId: string): void {
  if (!res || res instanceof Error || (res.status !== 200 && res.status !== 409)) return;
  const real = (name: RefName) => c.path.some((p) => p instanceof Ref && p.name === name);
  let v: unknown;
  try {
    v = JSON.parse(res.text).version;
  } catch {}
  if (typeof v !== "number") return;
  if (operationId === "syncSlot" && real("slotId") && real("accountId")) fx.versions.slot = v;
  if (operationId === "syncAccountData" && real("accountId")) fx.versions.account = v;
}

// ---- fixtures -----------------------------------------------------------------------------------

/**
 * The tenant every property runs in, a second one for cross-tenant credentials, a spare one for the
 * operator routes and Stripe events, and an identity provider: the stage environment trusts a Firebase project
 * whose key set this process serves, so signed tokens get through verification to the sign-in.
 * `stop` stops the key-set server.
 */
export async function fuzzTenant(d: Deployment) {
  const tenant = await newTenant(d);
  const foreign = await newTenant(d);
  const spare = await newTenant(d);
  // The fuzzer makes far more requests a minute than any player: the main project's limits must not
  // turn most of them into 429. Best effort, like the identity provider below.
  const unlimited = {
    accountCreationsPerIpPerMinute: 1e6,
    authExchangesPerIpPerMinute: 1e6,
    sessionRequestsPerMinute: 1e6,
    transferFailuresPerKeyPerMinute: 1e6,
    saveCreationsPerIpPerMinute: 1e6,
  };
  await admin(d, "PUT", `/admin/v1/projects/${tenant.projectId}/settings`, { rateLimits: unlimited });

  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const keys = { keys: [{ ...publicKey.export({ format: "jwk" }), kid: "fuzz", alg: "RS256", use: "sig" }] };
  const keySet = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json(keys) });
  // Best effort: where the auth bridge is missing, its routes' own properties say so.
  await admin(d, "PUT", `/admin/v1/projects/${tenant.projectId}/environments/stage/auth-providers/firebase`, {
    enabled: true,
    projectId: firebaseProject,
    jwksUrl: `http://127.0.0.1:${keySet.port}/jwks`,
  });
  return { ...tenant, foreignKey: foreign.key, spare, tokenKey: privateKey, stop: () => keySet.stop(true) };
}

/**
 * Fresh accounts per property: a route that deletes, archives or suspends only spoils its own
 * fixture, and every other route still reaches its write path.
 */
export async function newFixture(d: Deployment, t: Awaited<ReturnType<typeof fuzzTenant>>): Promise<Fixture> {
  const acc = await newAccount(d, t.key, { accountData: { coins: 1 }, slot: { slotId: "s1", data: { hp: 1 } } });
  const other = await newAccount(d, t.key);
  const old = await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "old", data: {} } });
  const archived = await acc.call("POST", "/api/v1/accounts/{acc}/slots/old/archive");
  const spare = await admin(d, "POST", `/admin/v1/projects/${t.projectId}/environments/stage/runtime-keys`, {
    label: "spare",
  });
  if (old.status !== 201 || archived.status !== 200 || spare.status !== 201)
    throw new Error(`fixture setup failed: ${old.status} ${archived.status} ${spare.status}`);
  // Best effort: when these routes fail, their own properties say so; the other routes still run.
  const view = await admin(d, "GET", `/admin/v1/accounts/${acc.accountId}`);
  const code = await acc.call("POST", "/api/v1/accounts/{acc}/transfer-codes", { body: {} });
  return {
    key: t.key,
    foreignKey: t.foreignKey,
    adminToken,
    accountId: acc.accountId,
    session: acc.session,
    sessionId: view.body?.sessions?.[0]?.sessionId ?? "ses_unknown",
    otherAccountId: other.accountId,
    otherSession: other.session,
    slotId: "s1",
    archivedSlotId: "old",
    workspaceId: t.spare.workspaceId,
    projectId: t.spare.projectId,
    spareKeyId: spare.body.keyId,
    transferCode: code.status === 201 ? code.body.transferCode : "NOT-A-CODE",
    versions: { account: 1, slot: 1 },
    tokenKey: t.tokenKey,
  };
}
