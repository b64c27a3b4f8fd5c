import { admin, newAccount, newTenant } from "./api.ts";
import type { Deployment } from "./deployments.ts";

/**
 * A steady-load generator for fault tests: `clients` simulated devices, each with its own account and
 * one slot, each syncing its slot version after version as fast as it gets answers, through the
 * deployment's gateways. It keeps what it needs to tell, afterwards, whether the deployment answered
 * every request, how long throughput took to come back after a fault, and whether any write it
 * acknowledged was lost.
 */

export interface LoadClient {
  index: number;
  accountId: string;
  session: string;
  slotId: string;
  /** The gateway this client talks to (pinned), or undefined for round-robin. */
  base?: string;
  /** The version the next write is based on. */
  version: number;
  /** The last write answered 200: its version and data. */
  acked: { version: number; data: SlotData };
  /** Logical writes started so far (the `n` of the next one). */
  counter: number;
  /** A logical write a stopped run left unanswered: the next run retries it first, same key and body. */
  pending?: { key: string; data: SlotData; baseVersion: number };
}

type SlotData = { n: number; client: number };

export interface LoadFleet {
  key: string;
  clients: LoadClient[];
  bases: string[];
  /** Starts every client's loop; `label` names the report. */
  start(label: string, options?: { requestTimeoutMs?: number; retryDelayMs?: number }): LoadRun;
  /** Reads every slot back and compares it with the client's last acknowledged write. */
  verify(timeoutMs?: number): Promise<Verification>;
}

export interface Verification {
  /** Slots whose stored version is below the acknowledged one, or equal with other data. */
  lostWrites: number;
  lost: {
    client: number;
    accountId: string;
    acked: { version: number; data: SlotData };
    stored: { version: number; data: unknown };
  }[];
  /** Slots that could not be read back before the deadline (the read's last status). */
  unverified: { client: number; accountId: string; status: number | string }[];
}

export type Answer = { t: number; status: number | "error"; ms: number; client: number };

/** One attempt of a logical write: when it was sent, what came back, the gateway's request id. */
export type Attempt = { sentAtMs: number; ms: number; status: number | string; requestId?: string };

export interface LoadRun {
  label: string;
  /** Milliseconds (performance.now clock) when the run started. */
  startedAt: number;
  /** Records a named moment (a fault, a restart) on the run's clock; returns it. */
  mark(name: string): number;
  marks: { name: string; t: number }[];
  timeline: Answer[];
  /** Stops the loops (each finishes its request in flight), reads every slot back, and reports. */
  stop(options?: { recoveryFrom?: string[]; baselineUntil?: string }): Promise<LoadReport>;
}

export interface Recovery {
  /** The mark it is measured from. */
  from: string;
  /** Milliseconds from the mark until the middle of the first 1 s window with >= 50% of the baseline rate (0: no dip). */
  firstBackMs: number;
  /** The same, for the first window from which every window for 2 s more has >= 50%: throughput back and staying back. */
  recoveryMs: number;
}

export interface LoadReport extends Verification {
  label: string;
  clients: number;
  seconds: number;
  requests: number;
  /** HTTP answers by status. */
  byStatus: Record<string, number>;
  /** 409s that were version conflicts (the client adopted the server's version). */
  conflicts: number;
  /** 409s that were idempotency_key_reused (a retry while the first try still ran), retried. */
  keyInProgress: number;
  /** Other 409s (unexpected), by error code. */
  other409: Record<string, number>;
  /**
   * Conflicts whose server slot held this very write (same data): an earlier attempt of it was
   * applied, and its retry (same Idempotency-Key) was answered 409 instead of the first answer.
   */
  ownWriteConflicts: { client: number; version: number; attempts: Attempt[] }[];
  /** Every other conflict: what the client sent and what the server held (the first 10). */
  otherConflicts: {
    client: number;
    baseVersion: number;
    sent: SlotData;
    server: { version: number; data: unknown };
    lastAcked: number;
    attempts: Attempt[];
  }[];
  /** Fetches that threw (refused, reset, timed out): no HTTP answer at all. */
  connectionErrors: number;
  connectionErrorsByCode: Record<string, number>;
  /** Writes answered 200. */
  accepted: number;
  /** Attempts that repeated a logical write after a 5xx, 429, connection error, or in-progress 409. */
  retries: number;
  /** 200s per second in 1 s buckets before the first fault mark, and their median. */
  baselineBuckets: number[];
  baselinePerSecond: number;
  /** 200s per second over the whole run, in 1 s buckets from the start. */
  perSecond: number[];
  recovery: Recovery[];
  latency: { p50: number; p99: number; max: number };
  /** Latency per status: median and max, ms. */
  latencyByStatus: Record<string, { p50: number; max: number }>;
  /** The longest time a client went without an accepted write (from the start to the end of the run), and who. */
  longestStall: { client: number; ms: number; fromMs: number };
  /** Clients that went more than 2 s without an accepted write. */
  clientsStalledOver2s: number;
  marks: { name: string; atMs: number }[];
  /** Up to 8 example answers per unexpected status: time, status, body excerpt. */
  samples: Record<string, string[]>;
}

/** Creates a tenant with session limits out of the way and `clients` accounts, each with one slot. */
export async function createLoadFleet(
  d: Deployment & { bases?: string[] },
  options: { clients?: number; pin?: boolean } = {},
): Promise<LoadFleet> {
  const count = options.clients ?? 20;
  const bases = d.bases ?? [];
  const { key, projectId } = await newTenant(d);
  // Each client syncs as fast as it can: far past a device's 120 requests a minute.
  const settings = await admin(d, "PUT", `/admin/v1/projects/${projectId}/settings`, {
    rateLimits: { sessionRequestsPerMinute: 1_000_000, accountCreationsPerIpPerMinute: 10_000 },
  });
  if (settings.status !== 200)
    throw new Error(`load settings failed: ${settings.status} ${JSON.stringify(settings.body)}`);
  const clients: LoadClient[] = [];
  for (let i = 0; i < count; i++) {
    const data: SlotData = { n: 0, client: i };
    const acc = await newAccount(d, key, { slot: { slotId: "load", data } });
    clients.push({
      index: i,
      accountId: acc.accountId,
      session: acc.session,
      slotId: "load",
      base: options.pin === false || bases.length === 0 ? undefined : bases[i % bases.length],
      version: 1,
      acked: { version: 1, data },
      counter: 1,
    });
  }
  const headersOf = (c: LoadClient) => ({
    authorization: `Bearer ${key}`,
    "x-service-account-session": c.session,
    "content-type": "application/json",
  });
  let rr = 0;
  const baseOf = (c: LoadClient) => c.base ?? bases[rr++ % Math.max(1, bases.length)];
  const url = (c: LoadClient, suffix = "") => {
    const path = `/api/v1/accounts/${c.accountId}/slots/${c.slotId}${suffix}`;
    return baseOf(c) ? `${baseOf(c)}${path}` : path;
  };
  const send = (_c: LoadClient, path: string, init: RequestInit) =>
    bases.length ? fetch(path, init) : d.request(path, init);

  const verify = async (timeoutMs = 20_000): Promise<Verification> => {
    const lost: Verification["lost"] = [];
    const unverified: Verification["unverified"] = [];
    const deadline = performance.now() + timeoutMs;
    await Promise.all(
      clients.map(async (c) => {
        let last: number | string = "not tried";
        while (performance.now() < deadline) {
          try {
            const res = await send(c, url(c), { headers: headersOf(c), signal: AbortSignal.timeout(10_000) });
            last = res.status;
            const body = (await res.json().catch(() => undefined)) as { version?: number; data?: unknown } | undefined;
            if (res.status === 200 && body && typeof body.version === "number") {
              const stored = { version: body.version, data: body.data };
              const sameData = JSON.stringify(stored.data) === JSON.stringify(c.acked.data);
              if (stored.version < c.acked.version || (stored.version === c.acked.version && !sameData)) {
                lost.push({ client: c.index, accountId: c.accountId, acked: c.acked, stored });
              }
              return;
            }
          } catch (err) {
            last = errorCode(err);
          }
          await Bun.sleep(200);
        }
        unverified.push({ client: c.index, accountId: c.accountId, status: last });
      }),
    );
    return { lostWrites: lost.length, lost, unverified };
  };

  const start = (label: string, runOptions: { requestTimeoutMs?: number; retryDelayMs?: number } = {}): LoadRun => {
    const requestTimeoutMs = runOptions.requestTimeoutMs ?? 12_000;
    const retryDelayMs = runOptions.retryDelayMs ?? 100;
    const startedAt = performance.now();
    const timeline: Answer[] = [];
    const marks: { name: string; t: number }[] = [];
    const byStatus: Record<string, number> = {};
    const connectionErrorsByCode: Record<string, number> = {};
    const other409: Record<string, number> = {};
    const samples: Record<string, string[]> = {};
    let requests = 0;
    let conflicts = 0;
    let keyInProgress = 0;
    const ownWriteConflicts: LoadReport["ownWriteConflicts"] = [];
    const otherConflicts: LoadReport["otherConflicts"] = [];
    let retries = 0;
    let stopping = false;
    const sample = (status: string, text: string) => {
      samples[status] ??= [];
      const list = samples[status];
      if (list.length < 8) list.push(`+${((performance.now() - startedAt) / 1000).toFixed(2)}s ${text.slice(0, 300)}`);
    };

    const loop = async (c: LoadClient) => {
      while (!stopping) {
        // One logical write: a fresh key and data, the same key and body on every retry (also in the
        // next run, when this one stops before it is answered).
        const write = c.pending ?? {
          key: crypto.randomUUID(),
          data: { n: c.counter++, client: c.index },
          baseVersion: c.version,
        };
        c.pending = write;
        const { data, key: idempotencyKey, baseVersion } = write;
        const attempts: Attempt[] = [];
        for (let attempt = 0; !stopping || attempt === 0; attempt++) {
          if (attempt > 0) retries++;
          const body = JSON.stringify({ baseVersion, data });
          const sent = performance.now();
          requests++;
          let status: number;
          let text = "";
          try {
            const res = await send(c, url(c, "/sync"), {
              method: "POST",
              headers: { ...headersOf(c), "idempotency-key": idempotencyKey },
              body,
              signal: AbortSignal.timeout(requestTimeoutMs),
            });
            status = res.status;
            text = await res.text();
            attempts.push({
              sentAtMs: Math.round(sent - startedAt),
              ms: Math.round(performance.now() - sent),
              status,
              requestId: res.headers.get("x-request-id") ?? undefined,
            });
          } catch (err) {
            const code = errorCode(err);
            connectionErrorsByCode[code] = (connectionErrorsByCode[code] ?? 0) + 1;
            attempts.push({
              sentAtMs: Math.round(sent - startedAt),
              ms: Math.round(performance.now() - sent),
              status: code,
            });
            timeline.push({ t: performance.now(), status: "error", ms: performance.now() - sent, client: c.index });
            sample(`error:${code}`, String((err as Error).message ?? err));
            await Bun.sleep(retryDelayMs);
            continue;
          }
          const now = performance.now();
          timeline.push({ t: now, status, ms: now - sent, client: c.index });
          byStatus[status] = (byStatus[status] ?? 0) + 1;
          let parsed: any;
          try {
            parsed = JSON.parse(text);
          } catch {}
          if (status === 200 && typeof parsed?.version === "number") {
            c.acked = { version: parsed.version, data };
            c.version = parsed.version;
            c.pending = undefined;
            break;
          }
          if (status === 409 && parsed?.status === "conflict") {
            conflicts++;
            if (JSON.stringify(parsed.slot?.data) === JSON.stringify(data))
              ownWriteConflicts.push({ client: c.index, version: parsed.slot.version, attempts });
            else if (otherConflicts.length < 10)
              otherConflicts.push({
                client: c.index,
                baseVersion,
                sent: data,
                server: { version: parsed.slot?.version, data: parsed.slot?.data },
                lastAcked: c.acked.version,
                attempts,
              });
            c.version = parsed.slot?.version ?? parsed.version;
            c.pending = undefined;
            break;
          }
          if (
            status === 409 &&
            parsed?.error?.code === "idempotency_key_reused" &&
            parsed.error.details?.reason === "in_progress"
          )
            keyInProgress++;
          else if (status === 409)
            other409[parsed?.error?.code ?? "?"] = (other409[parsed?.error?.code ?? "?"] ?? 0) + 1;
          if (status !== 503) sample(String(status), text);
          else if (!samples["503"] || samples["503"].length < 3) sample("503", text);
          // 503, 504, 429, an in-progress 409, anything else: the same logical write again, same key.
          await Bun.sleep(retryDelayMs);
        }
      }
    };
    const loops = clients.map((c) => loop(c));

    const mark = (name: string) => {
      const t = performance.now();
      marks.push({ name, t });
      return t;
    };

    const stop: LoadRun["stop"] = async (stopOptions = {}) => {
      stopping = true;
      const endedAt = performance.now();
      await Promise.all(loops);
      const verification = await verify();
      const accepted = byStatus["200"] ?? 0;
      const connectionErrors = Object.values(connectionErrorsByCode).reduce((a, b) => a + b, 0);
      const bucketsOf = (from: number, to: number) => {
        const n = Math.max(0, Math.floor((to - from) / 1000));
        const out = new Array<number>(n).fill(0);
        for (const a of timeline) {
          if (a.status !== 200 || a.t < from) continue;
          const i = Math.floor((a.t - from) / 1000);
          if (i < n) out[i]!++;
        }
        return out;
      };
      const firstFault = stopOptions.baselineUntil
        ? marks.find((m) => m.name === stopOptions.baselineUntil)?.t
        : marks[0]?.t;
      const baselineBuckets = bucketsOf(startedAt, firstFault ?? endedAt);
      const baselinePerSecond = median(baselineBuckets);
      const recoveryFrom = stopOptions.recoveryFrom ?? marks.map((m) => m.name);
      const recovery = recoveryFrom.map((name) => {
        const from = marks.find((m) => m.name === name)?.t;
        if (from === undefined) throw new Error(`no mark named ${name}`);
        return recoveryOf(timeline, from, endedAt, baselinePerSecond / 2, name);
      });
      const latencies = timeline.map((a) => a.ms).sort((a, b) => a - b);
      const at = (q: number) =>
        Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN);
      const latencyByStatus: LoadReport["latencyByStatus"] = {};
      for (const status of new Set(timeline.map((a) => String(a.status)))) {
        const ms = timeline
          .filter((a) => String(a.status) === status)
          .map((a) => a.ms)
          .sort((a, b) => a - b);
        latencyByStatus[status] = { p50: Math.round(ms[Math.floor(ms.length / 2)]!), max: Math.round(ms.at(-1)!) };
      }
      let longestStall = { client: -1, ms: 0, fromMs: 0 };
      let clientsStalledOver2s = 0;
      for (const c of clients) {
        const times = [
          startedAt,
          ...timeline.filter((a) => a.client === c.index && a.status === 200).map((a) => a.t),
          endedAt,
        ].sort((a, b) => a - b);
        let worst = { ms: 0, from: startedAt };
        for (let i = 1; i < times.length; i++)
          if (times[i]! - times[i - 1]! > worst.ms) worst = { ms: times[i]! - times[i - 1]!, from: times[i - 1]! };
        if (worst.ms > 2_000) clientsStalledOver2s++;
        if (worst.ms > longestStall.ms)
          longestStall = { client: c.index, ms: Math.round(worst.ms), fromMs: Math.round(worst.from - startedAt) };
      }
      return {
        label,
        clients: clients.length,
        seconds: (endedAt - startedAt) / 1000,
        requests,
        byStatus,
        conflicts,
        keyInProgress,
        other409,
        ownWriteConflicts,
        otherConflicts,
        connectionErrors,
        connectionErrorsByCode,
        accepted,
        retries,
        baselineBuckets,
        baselinePerSecond,
        perSecond: bucketsOf(startedAt, endedAt),
        recovery,
        latency: { p50: at(0.5), p99: at(0.99), max: Math.round(latencies.at(-1) ?? NaN) },
        latencyByStatus,
        longestStall,
        clientsStalledOver2s,
        marks: marks.map((m) => ({ name: m.name, atMs: Math.round(m.t - startedAt) })),
        samples,
        ...verification,
      };
    };

    return { label, startedAt, mark, marks, timeline, stop };
  };

  return { key, clients, bases, start, verify };
}

/**
 * Recovery after the moment `from`, over 1 s windows starting every 100 ms at or after `from` (those
 * that end by `end`), each counting 200s against `threshold`. A window counts at its middle, so a
 * sharp resumption at time R is measured as R (a window starting at `from` that already reaches the
 * threshold counts as 0: no dip). `firstBackMs` is the first window reaching it; `recoveryMs` the
 * first from which every window for `holdMs` more reaches it (back and staying back), Infinity when
 * none does before the run ends.
 */
export function recoveryOf(
  timeline: Answer[],
  from: number,
  end: number,
  threshold: number,
  name = "",
  holdMs = 2_000,
): Recovery {
  const accepted = timeline.filter((a) => a.status === 200 && a.t >= from).map((a) => a.t);
  const windows: boolean[] = [];
  for (let s = from; s + 1000 <= end; s += 100) {
    const count = accepted.filter((t) => t >= s && t < s + 1000).length;
    windows.push(count >= threshold);
  }
  const at = (i: number) => (i === -1 ? Infinity : i === 0 ? 0 : i * 100 + 500);
  const hold = Math.round(holdMs / 100);
  let held = -1;
  for (let i = 0; i + hold < windows.length; i++) {
    if (windows.slice(i, i + hold + 1).every(Boolean)) {
      held = i;
      break;
    }
  }
  return { from: name, firstBackMs: at(windows.indexOf(true)), recoveryMs: at(held) };
}

function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The most specific name of a fetch failure: ECONNREFUSED, ECONNRESET, TimeoutError, ... */
export function errorCode(err: unknown): string {
  const e = err as { code?: string; name?: string; cause?: { code?: string } };
  return e?.code ?? e?.cause?.code ?? e?.name ?? "unknown";
}

const fmtMs = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : "never");

/** The report as one readable block. */
export function formatReport(r: LoadReport, extra: string[] = []): string {
  const statuses = Object.entries(r.byStatus)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([s, n]) => `${s}: ${n}`)
    .join(", ");
  const lines = [
    `==== ${r.label} ====`,
    `clients ${r.clients}, ${r.seconds.toFixed(1)} s of load; marks: ${r.marks.map((m) => `${m.name} @ ${(m.atMs / 1000).toFixed(1)} s`).join(", ") || "none"}`,
    `requests sent      ${r.requests}`,
    `answers by status  ${statuses || "none"}`,
    `  409 conflicts ${r.conflicts} (own write answered as conflict: ${r.ownWriteConflicts.length}), 409 key in progress ${r.keyInProgress}, other 409 ${JSON.stringify(r.other409)}`,
    ...r.ownWriteConflicts
      .slice(0, 3)
      .map((o) => `    own: client ${o.client} v${o.version} attempts ${JSON.stringify(o.attempts)}`),
    ...r.otherConflicts
      .slice(0, 3)
      .map(
        (o) =>
          `    other: client ${o.client} sent ${JSON.stringify(o.sent)} on v${o.baseVersion} (last acked v${o.lastAcked}), server v${o.server.version} ${JSON.stringify(o.server.data)}, attempts ${JSON.stringify(o.attempts)}`,
      ),
    `connection errors  ${r.connectionErrors} ${JSON.stringify(r.connectionErrorsByCode)}`,
    `accepted writes    ${r.accepted} (retried attempts ${r.retries})`,
    `baseline           ${r.baselinePerSecond} accepted/s (median of [${r.baselineBuckets.join(", ")}])`,
    `accepted per s     [${r.perSecond.join(", ")}]`,
    ...r.recovery.map(
      (x) =>
        `recovery from "${x.from}": back >= 50% after ${fmtMs(x.firstBackMs)}, and staying there (2 s) after ${fmtMs(x.recoveryMs)}`,
    ),
    `latency            p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms; by status ${Object.entries(
      r.latencyByStatus,
    )
      .map(([s, l]) => `${s} p50 ${l.p50}/max ${l.max}`)
      .join(", ")}`,
    `stalls             ${r.clientsStalledOver2s} clients went > 2 s without an accepted write; longest: client ${r.longestStall.client}, ${(r.longestStall.ms / 1000).toFixed(1)} s from +${(r.longestStall.fromMs / 1000).toFixed(1)} s`,
    `lost writes        ${r.lostWrites}${r.lost.length ? ` ${JSON.stringify(r.lost.slice(0, 5))}` : ""}`,
    ...(r.unverified.length
      ? [`unverified slots   ${r.unverified.length} ${JSON.stringify(r.unverified.slice(0, 5))}`]
      : []),
    ...Object.entries(r.samples).flatMap(([s, list]) => [`sample ${s}:`, ...list.map((l) => `    ${l}`)]),
    ...extra,
  ];
  return lines.join("\n");
}
