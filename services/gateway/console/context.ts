import type { z } from "zod";
import type { AdminClient, Answer, OkBody } from "../../../shared/contract/admin-client.ts";
import type { Route } from "../../../shared/contract/route.ts";
import type { Raw } from "./html.ts";

/** Any admin API answer, as the console shows an error. */
export type ApiAnswer = Pick<Answer<Route>, "status" | "body">;

/** What a console view gets: the request, its form fields (POST), a CSRF token, and the admin API. */
export interface Ctx {
  request: Request;
  url: URL;
  params: Record<string, string>;
  csrf: string;
  form: URLSearchParams;
  /** The admin API, through the gateway's own route handling (same checks, same audit log). */
  api: AdminClient;
}

export interface View {
  title: string;
  body: Raw;
  notice?: string;
  error?: string;
}

/** An admin API answer that is an error, shown to the operator as the API worded it. */
export class ApiError extends Error {
  constructor(readonly answer: ApiAnswer) {
    super(messageOf(answer.body) ?? `The admin API answered ${answer.status}.`);
  }
}

/** The message of an error body (`{ error: { message } }`). */
const messageOf = (body: unknown): string | undefined => {
  const error = body && typeof body === "object" && "error" in body ? body.error : undefined;
  const message = error && typeof error === "object" && "message" in error ? error.message : undefined;
  return typeof message === "string" ? message : undefined;
};

/** The success body of an answer; any other answer is an ApiError, shown as the API worded it. */
export function ok<R extends Route>(answer: Answer<R>): OkBody<R> {
  if (!answer.ok) throw new ApiError(answer);
  return answer.body;
}

const origin = "http://console";
/** Whether `url` (resolved against `origin`) is a console page: a redirect never leaves /console. */
const inConsole = (url: URL) =>
  url.origin === origin && (url.pathname === "/console" || url.pathname.startsWith("/console/"));

/**
 * After a change: back to a page (303, so a reload does not post again), with a notice or an error.
 * A target outside /console (an id such as "../..//evil.example" that slipped into it) goes to /console.
 * The message is shown only once the console has sealed it for the session (index.ts).
 */
export function redirect(to: string, message?: { notice?: string; error?: string }): Response {
  const resolved = new URL(to, origin);
  const url = inConsole(resolved) ? resolved : new URL("/console", origin);
  if (message?.notice) url.searchParams.set("notice", message.notice);
  if (message?.error) url.searchParams.set("error", message.error);
  return new Response(null, { status: 303, headers: { location: url.pathname + url.search } });
}

/** Runs a change and redirects with what the API said. */
export async function act(to: string, run: () => Promise<string>): Promise<Response> {
  try {
    return redirect(to, { notice: await run() });
  } catch (err) {
    if (err instanceof ApiError) return redirect(to, { error: err.message });
    throw err;
  }
}

export const field = (ctx: Ctx, name: string) => (ctx.form.get(name) ?? "").trim();
/**
 * A value the operator typed or picked (a form field, a page path's segment, JSON from a textarea), passed
 * on as `schema`'s type: the admin API checks it against the route's schema and answers 400, which the page shows.
 */
export const typed = <S extends z.ZodType>(_schema: S, value: unknown) => value as z.input<S>;

/** One console page: its method, its path under /console, and what it answers. */
export type Handler = (ctx: Ctx) => Promise<View | Response>;
export type Pages = Array<["GET" | "POST", string, Handler]>;
