import type { z } from "zod";
import { adminRoutes } from "./admin-routes.ts";
import type { Route } from "./route.ts";

/**
 * The one caller of the admin API (docs/api-rules.md#operators), for the console and the CLI alike. A
 * call names its route in the route table; the path, the query and the body come from that route, and
 * so do their types: a changed admin route fails to compile where it is called, not at run time.
 */
export type AdminRoutes = typeof adminRoutes;
export type AdminOperation = keyof AdminRoutes;

/** What the client sends: the route's method, its path with params and query filled in, the body as JSON. */
export interface Sent {
  method: Route["method"];
  path: string;
  body?: string;
}
/** What came back: the status and the body exactly as sent. */
export interface Received {
  status: number;
  text: string;
}
/** Carries one request: the console through the gateway's own handling, the CLI over HTTP. */
export type Transport = (sent: Sent) => Promise<Received>;

// A route without path params has the empty strict object (route.ts), whose input type has string keys.
type ParamsOf<R extends Route> =
  R["params"] extends z.ZodObject<infer Shape>
    ? [keyof Shape] extends [never]
      ? { params?: undefined }
      : { params: z.input<R["params"]> }
    : { params: z.input<R["params"]> };
type BodyOf<R extends Route> = R extends { body: infer B extends z.ZodType }
  ? R extends { bodyOptional: true }
    ? { body?: z.input<B> }
    : { body: z.input<B> }
  : { body?: undefined };
/** A call's input, read from the route's own schemas. */
export type CallInput<R extends Route> = ParamsOf<R> & { query?: z.input<R["query"]> } & BodyOf<R>;
/** The success body of a route, as its `ok` schema describes it. */
export type OkBody<R extends Route> = z.output<R["ok"][1]>;

interface AnswerBase {
  status: number;
  /** The body exactly as the server sent it (the CLI's `--json` prints it). */
  text: string;
}
/** A route's conflict reply (409 with the state the write lost to), on the routes that have one. */
type ConflictOf<R extends Route> = R extends { conflict: infer C extends z.ZodType }
  ? AnswerBase & { ok: false; conflict: true; body: z.output<C> }
  : never;
/** An answer: a 2xx carries the route's success body; a conflict its conflict body; an error what the server said. */
export type Answer<R extends Route> =
  | (AnswerBase & { ok: true; conflict?: undefined; body: OkBody<R> })
  | ConflictOf<R>
  | (AnswerBase & { ok: false; conflict?: undefined; body: unknown });

/** A call built at run time from the route's schemas (the CLI's flags): checked by the server, not the compiler. */
export interface LooseInput {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/** The route's path with each `:param` filled in (encoded) and the query appended. */
export function pathOf(route: Route, input: LooseInput): string {
  const params = input.params ?? {};
  const path = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(String(params[name])));
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(input.query ?? {})) if (v !== undefined) query.set(k, String(v));
  return query.size > 0 ? `${path}?${query}` : path;
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Sends one call of `route` and reads its answer. Only the transport's own failures throw. */
async function send(transport: Transport, route: Route, input: LooseInput): Promise<Answer<Route>> {
  const got = await transport({
    method: route.method,
    path: pathOf(route, input),
    body: input.body === undefined ? undefined : JSON.stringify(input.body),
  });
  const body = parsed(got.text);
  const ok = got.status >= 200 && got.status < 300;
  // A route's conflict reply says so in its body (`status: "conflict"`), unlike a 409 error.
  const conflict =
    got.status === 409 &&
    route.conflict !== undefined &&
    (body as { status?: unknown } | undefined)?.status === "conflict";
  return { status: got.status, text: got.text, ok, body, ...(conflict ? { conflict } : {}) } as Answer<Route>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A paged answer (one that names its `next` page, such as an account export) followed to its end and
 * merged into one document: list fields are concatenated, the rest is taken from the first page.
 */
async function allPages(transport: Transport, route: Route, input: LooseInput): Promise<Answer<Route>> {
  const first = await send(transport, route, input);
  const merged = first.ok && isRecord(first.body) ? first.body : undefined;
  let page = first;
  while (page.ok && isRecord(page.body) && typeof page.body.next === "string") {
    page = await send(transport, route, { ...input, query: { ...input.query, cursor: page.body.next } });
    if (!page.ok) return page;
    for (const [field, value] of Object.entries(isRecord(page.body) ? page.body : {})) {
      const into = merged?.[field];
      if (Array.isArray(value) && Array.isArray(into)) into.push(...value);
    }
  }
  if (!merged || merged.next === undefined) return first;
  delete merged.next;
  return { ...first, body: merged, text: JSON.stringify(merged) } as Answer<Route>;
}

export function adminClient(transport: Transport) {
  return {
    /** One call of the admin route `name`, typed by its schemas. */
    call: <K extends AdminOperation>(name: K, input: CallInput<AdminRoutes[K]>): Promise<Answer<AdminRoutes[K]>> =>
      send(transport, adminRoutes[name], input as LooseInput) as Promise<Answer<AdminRoutes[K]>>,
    /** `call`, following a paged answer's `next` to its end: one document of every page. */
    allPages: <K extends AdminOperation>(name: K, input: CallInput<AdminRoutes[K]>): Promise<Answer<AdminRoutes[K]>> =>
      allPages(transport, adminRoutes[name], input as LooseInput) as Promise<Answer<AdminRoutes[K]>>,
    /** `allPages` for input built at run time from the route's own schemas (the CLI's flags). */
    allPagesLoose: (name: AdminOperation, input: LooseInput) => allPages(transport, adminRoutes[name], input),
  };
}
export type AdminClient = ReturnType<typeof adminClient>;
