/**
 * The bus port: request-reply with timeouts and typed errors, fan-out events, and a durable work
 * queue. Adapters: `local.ts` (in-process) and `nats.ts`. Both must pass `tests/contract/bus.test.ts`.
 */
export type Headers = Record<string, string>;

export interface RequestMeta {
  headers: Headers;
  requestId?: string;
}

/** Answers a request. Throw an AppError for an expected failure; anything else becomes `internal_error`. */
export type RequestHandler = (data: unknown, meta: RequestMeta) => Promise<unknown>;

export interface RequestOptions {
  timeoutMs?: number;
  headers?: Headers;
}

export interface Bus {
  /** The largest message, in bytes, a request or reply may be (Infinity in process). */
  readonly maxPayload: number;
  /**
   * Sends a request to one instance of the service serving `subject`. Resolves with the handler's
   * value; rejects with the handler's AppError, `service_unavailable` when nothing serves the
   * subject, or `service_timeout`.
   */
  request(subject: string, data: unknown, options?: RequestOptions): Promise<unknown>;
  /** Serves `subject`; instances in the same `group` share the requests. */
  serve(group: string, subject: string, handler: RequestHandler): void;
  /** Fire-and-forget to every subscriber. */
  publish(subject: string, data: unknown): void;
  subscribe(subject: string, handler: (data: unknown) => void): void;
  /** Adds a job; resolves once it is stored durably (where the adapter is durable). */
  enqueue(queue: string, job: unknown): Promise<void>;
  /** Consumes jobs one at a time; a job whose handler throws is delivered again later. */
  work(queue: string, handler: (job: unknown) => Promise<void>): void;
  /** Stops serving and consuming after in-flight handlers finish. */
  close(): Promise<void>;
}

export const defaultRequestTimeoutMs = 5_000;
export const requestIdHeader = "x-request-id";
