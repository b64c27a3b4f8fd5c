import { connect } from "nats";
import { decodeRequest } from "../../shared/bus/nats-wire.ts";
import type { Bus } from "../../shared/bus/port.ts";

/** One bus request as it crossed: its subject, its size as JSON text, and the message itself. */
export interface Tapped {
  subject: string;
  bytes: number;
  data: Record<string, unknown>;
  requestId?: string;
}

export interface BusTap {
  readonly seen: Tapped[];
  /** The requests on `subject` since the tap started. */
  on(subject: string): Tapped[];
  stop(): Promise<void>;
}

const tap = (seen: Tapped[], stop: () => Promise<void>): BusTap => ({
  seen,
  on: (subject) => seen.filter((t) => t.subject === subject),
  stop,
});

/**
 * Records every request sent on the in-process bus (the gateway's calls included), sized as the JSON
 * text NATS would carry: the local bus hands the objects over, so this is what the wire would hold.
 */
export function tapLocalBus(bus: Bus): BusTap {
  const seen: Tapped[] = [];
  const request = bus.request;
  bus.request = (subject, data, options) => {
    const text = JSON.stringify(data ?? null);
    seen.push({
      subject,
      bytes: Buffer.byteLength(text),
      data: JSON.parse(text),
      requestId: options?.headers?.["x-request-id"],
    });
    return request.call(bus, subject, data, options);
  };
  return tap(seen, async () => {
    bus.request = request;
  });
}

/** Records the requests on `subjects` as NATS carried them, from a plain subscription beside the services' queue groups. */
export async function tapNats(url: string, subjects: readonly string[]): Promise<BusTap> {
  const nc = await connect({ servers: url, name: "test-tap" });
  const seen: Tapped[] = [];
  for (const subject of subjects) {
    nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return;
        const { data, headers } = decodeRequest(msg);
        seen.push({
          subject: msg.subject,
          bytes: msg.data.byteLength,
          data: data as Record<string, unknown>,
          requestId: headers["x-request-id"],
        });
      },
    });
  }
  await nc.flush();
  return tap(seen, () => nc.close());
}
