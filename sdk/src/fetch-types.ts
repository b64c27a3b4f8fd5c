/**
 * The part of `fetch` the SDK uses, spelled out so that its declarations need neither the DOM library
 * nor @types/node: the platform's `fetch` (browsers, Node 18+, Bun, Deno, React Native) fits it.
 */
export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  keepalive?: boolean;
  /** The platform's AbortSignal: its type lives in the DOM library (or @types/node), and the platform's RequestInit must accept this. */
  signal?: PlatformAbortSignal;
}

/** The AbortSignal of whichever library declares one; none without such a library, where no signal is passed. */
type PlatformAbortSignal = typeof globalThis extends { AbortSignal: { prototype: infer S } } ? S : never;

export interface FetchResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/** The platform's `fetch`, or anything shaped like it (a test's, React Native's). */
export type FetchFn = (url: string, init: FetchInit) => Promise<FetchResponse>;
