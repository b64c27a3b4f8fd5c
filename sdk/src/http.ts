import type { Clock } from "./clock.ts";
import { errorFromAnswer, SavepointError } from "./errors.ts";
import type { FetchFn, FetchResponse } from "./fetch-types.ts";
import { type OperationId, type RouteTypes, routes } from "./generated/routes.ts";
import { assertJson } from "./json-check.ts";
import { type RetryOptions, withRetries } from "./retry.ts";

export type { FetchFn, FetchInit, FetchResponse } from "./fetch-types.ts";

export interface TransportOptions {
  /** Where the API is, e.g. `https://saves.example.com` (no trailing `/api/v1`). */
  baseUrl: string;
  runtimeKey: string;
  fetch?: FetchFn;
  clock: Clock;
  retry?: RetryOptions;
  /** A request without an answer after this long counts as lost, and is retried (default 15000). */
  timeoutMs?: number;
  /** The session of this device, read on every call (it changes on sign-in and transfer). */
  session?: () => { accountId: string; token: string } | undefined;
  /** Every answer's `Date` header, with the clock's time when the request left and when the answer came. */
  onDate?: (date: string | null, sentAt: number, receivedAt: number) => void;
}

export interface CallInput {
  params?: Record<string, string | number>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Sent on writes; one per logical write, reused by every retry of it (README, Retries). */
  idempotencyKey?: string;
  headers?: Record<string, string>;
  /** Lets the request outlive the page (flush on pagehide). */
  keepalive?: boolean;
  /** Overrides the device session for this call (route 4 links to another account's session). */
  session?: { accountId: string; token: string } | null;
}

export interface RouteSpec {
  method: string;
  path: string;
  auth: string;
  ok: number;
  idempotent: boolean;
}

export interface Answer<T> {
  status: number;
  body: T;
  headers: { get(name: string): string | null };
}

/** 128 bits of randomness as 32 hex digits: keys on routes without a session must be unguessable. */
export function newIdempotencyKey(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

const fill = (path: string, params: Record<string, string | number> = {}) =>
  path.replace(/\{([A-Za-z]+)\}/g, (_, name: string) => {
    if (params[name] === undefined) throw new SavepointError("invalid_request", `missing path parameter ${name}`, 0);
    return encodeURIComponent(String(params[name]));
  });

/** One typed call of a route: retried while retrying may help, with the same Idempotency-Key each time. */
export class Transport {
  private readonly fetch: FetchFn;
  constructor(readonly options: TransportOptions) {
    this.fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  }

  /** The route's success body, or its conflict body (`status: "conflict"`); any other answer throws. */
  call<K extends OperationId>(
    op: K,
    input: CallInput = {},
  ): Promise<Answer<RouteTypes[K]["ok"] | RouteTypes[K]["conflict"]>> {
    return this.callRoute(routes[op], input);
  }

  /** A route described by hand (one the generated table does not list yet). */
  callRoute<T = unknown>(route: RouteSpec, input: CallInput = {}): Promise<Answer<T>> {
    const key = route.idempotent ? (input.idempotencyKey ?? newIdempotencyKey()) : undefined;
    // Nothing leaves that JSON would change on the way; an optional field left undefined is simply absent.
    if (input.body !== undefined) assertJson("body", input.body, { optionalTopLevel: true });
    // The body is the route's own answer (its `ok` or `conflict` schema): `call` names which.
    return withRetries(this.options.clock, this.options.retry ?? {}, () => this.once(route, input, key)) as Promise<
      Answer<T>
    >;
  }

  private async once(route: RouteSpec, input: CallInput, idempotencyKey: string | undefined): Promise<Answer<unknown>> {
    const url = new URL(this.options.baseUrl.replace(/\/+$/, "") + fill(route.path, input.params));
    for (const [k, v] of Object.entries(input.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: "application/json", ...input.headers };
    if (route.auth !== "none") headers.authorization = `Bearer ${this.options.runtimeKey}`;
    const session = input.session === undefined ? this.options.session?.() : input.session;
    if (session && (route.auth === "session" || route.auth === "optionalSession")) {
      headers["x-service-account-session"] = session.token;
      if (!route.path.includes("{accountId}")) headers["x-service-account-id"] = session.accountId;
    }
    if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
    let body: string | undefined;
    if (input.body !== undefined) {
      body = JSON.stringify(input.body);
      headers["content-type"] = "application/json";
    }
    let res: FetchResponse;
    let text: string;
    // Real time, not the SDK's clock: a server that never answers must not hold a sync forever.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.options.timeoutMs ?? 15_000);
    try {
      // Browsers refuse keepalive requests over 64 KiB in flight: a bigger save goes as a normal request.
      const keepalive = input.keepalive === true && (body?.length ?? 0) < 60_000;
      const sentAt = this.options.clock.now();
      res = await this.fetch(url.toString(), {
        method: route.method,
        headers,
        body,
        keepalive,
        signal: controller.signal,
      });
      this.options.onDate?.(res.headers.get("date"), sentAt, this.options.clock.now());
      text = await res.text();
    } catch (e) {
      throw new SavepointError("network_error", `no answer from ${url.host}: ${(e as Error)?.message ?? e}`, 0);
    } finally {
      clearTimeout(timer);
    }
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    if (res.status === route.ok || res.status === 304)
      return { status: res.status, body: parsed, headers: res.headers };
    if (res.status === 409 && (parsed as { status?: unknown } | undefined)?.status === "conflict")
      return { status: 409, body: parsed, headers: res.headers };
    throw errorFromAnswer(res.status, parsed, res.headers, this.options.clock.now());
  }
}
