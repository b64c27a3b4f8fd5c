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

/** How a work queue retries: decided by the service, the same on both adapters. */
export interface WorkOptions {
  /** Deliveries of a job before it is given up on. */
  maxDeliver: number;
  /** Delay before each redelivery after a failure; the last one repeats. */
  backoffMs: readonly number[];
  /** A delivery not acknowledged in this time counts as failed (its worker died) and comes back. */
  ackWaitMs: number;
  /**
   * Where a job out of deliveries goes (its handler kept failing, or its worker kept dying while
   * running it): recorded for an operator, never retried in an endless loop.
   */
  onDead(job: unknown, failure: { deliveries: number; error: string }): Promise<void>;
}

export interface Bus {
  /** The largest message, in bytes, a request or reply may be (Infinity in process). */
  readonly maxPayload: number;
  /**
   * Requests reach handlers in this process as the caller's own objects, never serialized. Handlers
   * see them exactly as a NATS handler sees its decoded message: what they accept is the serving
   * layer's to check, the same way on both adapters (shared/serving/host.ts).
   */
  readonly inProcess: boolean;
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
  /**
   * Consumes jobs one at a time; a job is acknowledged once its handler resolves, delivered again
   * after a failure (`options`), and handed to `options.onDead` when out of deliveries.
   */
  work(queue: string, handler: (job: unknown) => Promise<void>, options: WorkOptions): void;
  /** Whether the bus can carry requests now (NATS: connected, not reconnecting). */
  connected(): boolean;
  /** Stops serving and consuming after in-flight handlers finish. */
  close(): Promise<void>;
}

export const defaultRequestTimeoutMs = 5_000;
/** How long a requester waits for a reply, in either adapter. */
export const requestTimeoutOf = (options: RequestOptions) => options.timeoutMs ?? defaultRequestTimeoutMs;
export const requestIdHeader = "x-request-id";
