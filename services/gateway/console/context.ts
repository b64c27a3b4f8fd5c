import type { Raw } from "./html.ts";

export interface ApiAnswer {
  status: number;
  body: any;
}

/** What a console view gets: the request, its form fields (POST), a CSRF token, and the admin API. */
export interface Ctx {
  request: Request;
  url: URL;
  params: Record<string, string>;
  csrf: string;
  form: URLSearchParams;
  /** One admin API request, through the gateway's own route handling (same checks, same audit log). */
  api(method: string, path: string, body?: unknown): Promise<ApiAnswer>;
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
    super(answer.body?.error?.message ?? `The admin API answered ${answer.status}.`);
  }
}

export function ok(answer: ApiAnswer): any {
  if (answer.status >= 400) throw new ApiError(answer);
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

/** One console page: its method, its path under /console, and what it answers. */
export type Handler = (ctx: Ctx) => Promise<View | Response>;
export type Pages = Array<["GET" | "POST", string, Handler]>;
