/**
 * Prometheus metrics for one process (text exposition format 0.0.4). In the embedded deployment every
 * service shares the process, so its series carry a `service` label where that matters. Series are
 * created on first use: a label set nobody used is simply absent.
 */
type Labels = Record<string, string | number>;

const escapeLabel = (v: string) =>
  /[\\\n"]/.test(v) ? v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"') : v;
const labelText = (labels: Labels) => {
  let text = "";
  for (const k in labels) text += `${text ? "," : "{"}${k}="${escapeLabel(String(labels[k]))}"`;
  return text ? `${text}}` : "";
};
// On every request a series is looked up by its labels: a key made by plain concatenation (control
// characters apart, no label holds), the exposition's escaped text only once, when the series is made.
const seriesKey = (labels: Labels) => {
  let key = "";
  for (const k in labels) key += `${k}\u0001${labels[k]}\u0002`;
  return key;
};

interface Metric {
  render(): string[];
}

/** One labelled series of a counter: a caller that counts on it often keeps it (Counter.series). */
export class CounterSeries {
  value = 0;
  constructor(readonly text: string) {}
  inc(by = 1): void {
    this.value += by;
  }
}

class Counter implements Metric {
  private readonly all = new Map<string, CounterSeries>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  /** The series of `labels`, made on first use. */
  series(labels: Labels = {}): CounterSeries {
    const key = seriesKey(labels);
    let s = this.all.get(key);
    if (!s) {
      s = new CounterSeries(labelText(labels));
      this.all.set(key, s);
    }
    return s;
  }

  inc(labels: Labels = {}, by = 1): void {
    this.series(labels).inc(by);
  }

  render() {
    return [
      `# HELP ${this.name} ${this.help}`,
      `# TYPE ${this.name} counter`,
      ...[...this.all.values()].map((s) => `${this.name}${s.text} ${s.value}`),
    ];
  }
}

/** One labelled series of a histogram (Histogram.series). */
export class HistogramSeries {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Labels,
    private readonly buckets: readonly number[],
  ) {
    this.counts = buckets.map(() => 0);
  }

  observe(seconds: number): void {
    // Only the first bucket that holds it is counted here; the exposition's buckets are cumulative (render).
    let i = 0;
    while (i < this.buckets.length && !(seconds <= this.buckets[i]!)) i++;
    if (i < this.buckets.length) this.counts[i]!++;
    this.sum += seconds;
    this.count++;
  }
}

class Histogram implements Metric {
  private readonly all = new Map<string, HistogramSeries>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
  ) {}

  /** The series of `labels`, made on first use. */
  series(labels: Labels): HistogramSeries {
    const key = seriesKey(labels);
    let s = this.all.get(key);
    if (!s) {
      s = new HistogramSeries(labels, this.buckets);
      this.all.set(key, s);
    }
    return s;
  }

  observe(labels: Labels, seconds: number): void {
    this.series(labels).observe(seconds);
  }

  render() {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const s of this.all.values()) {
      let below = 0;
      for (const [i, le] of this.buckets.entries()) {
        below += s.counts[i]!;
        lines.push(`${this.name}_bucket${labelText({ ...s.labels, le })} ${below}`);
      }
      lines.push(`${this.name}_bucket${labelText({ ...s.labels, le: "+Inf" })} ${s.count}`);
      lines.push(
        `${this.name}_sum${labelText(s.labels)} ${s.sum}`,
        `${this.name}_count${labelText(s.labels)} ${s.count}`,
      );
    }
    return lines;
  }
}

class Gauge implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly read: () => number,
  ) {}
  render() {
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`, `${this.name} ${this.read()}`];
  }
}

/** A gauge moved up and down by its owner; absent until first moved (a process that never uses it shows none). */
class Level implements Metric {
  private value: number | undefined;
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  add(by: number): void {
    this.value = (this.value ?? 0) + by;
  }
  set(value: number): void {
    this.value = value;
  }
  render() {
    return this.value === undefined
      ? []
      : [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`, `${this.name} ${this.value}`];
  }
}

const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const registry: Metric[] = [];
const add = <M extends Metric>(m: M) => {
  registry.push(m);
  return m;
};
const latency = (name: string, help: string) => add(new Histogram(name, help, latencyBuckets));

/** Seconds since `start` (a `performance.now()` reading). */
export const since = (start: number) => (performance.now() - start) / 1000;

/** Every series this process exports; names and meanings are listed in docs/operating.md#metrics-and-alerts. */
export const metrics = {
  httpRequests: add(
    new Counter("savepoint_http_requests_total", "HTTP requests answered by the gateway, by route, method and status."),
  ),
  httpDuration: latency(
    "savepoint_http_request_duration_seconds",
    "Gateway time from request to answer, by route, method and status.",
  ),
  conflicts: add(
    new Counter(
      "savepoint_sync_conflicts_total",
      "Syncs answered 409 with the server's state (stale baseVersion), by route.",
    ),
  ),
  busRequests: latency(
    "savepoint_bus_request_duration_seconds",
    "Bus request-reply round trips as the caller saw them, by subject and outcome (ok or an error code).",
  ),
  handled: latency(
    "savepoint_handler_duration_seconds",
    "Time services spent answering bus requests, by service, subject and outcome.",
  ),
  storeErrors: add(
    new Counter(
      "savepoint_store_errors_total",
      "Store operations that failed because the database was unreachable, by service.",
    ),
  ),
  idempotencyCapReached: add(
    new Counter(
      "savepoint_idempotency_cap_reached_total",
      "Accounts or client addresses whose keyed requests reached the daily cap of recorded keys, by route and scope (account or client).",
    ),
  ),
  jobs: add(
    new Counter(
      "savepoint_jobs_total",
      "Work-queue jobs by queue and outcome: done, retried, or dead (moved to the dead letters).",
    ),
  ),
  backups: add(
    new Counter("savepoint_backups_total", "Scheduled backups of the embedded deployment, by outcome: ok or failed."),
  ),
  backupLastSuccess: add(
    new Level(
      "savepoint_backup_last_success_timestamp_seconds",
      "When the last scheduled backup that succeeded ended (Unix seconds).",
    ),
  ),
  backupLastBytes: add(
    new Level(
      "savepoint_backup_last_size_bytes",
      "Bytes of the last scheduled backup that succeeded: its stores and secrets.",
    ),
  ),
  backupLastFailure: add(
    new Level(
      "savepoint_backup_last_failure_timestamp_seconds",
      "When the last scheduled backup that failed gave up (Unix seconds).",
    ),
  ),
  answerBytes: add(
    new Level(
      "savepoint_gateway_answer_bytes_in_flight",
      "Bytes of answers the gateway holds: admitted, not yet written.",
    ),
  ),
  rss: add(
    new Gauge("process_resident_memory_bytes", "Resident memory of this process.", () => process.memoryUsage.rss()),
  ),
  cpu: add(
    new Gauge("process_cpu_seconds_total", "User and system CPU time of this process.", () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1e6;
    }),
  ),
  uptime: add(new Gauge("process_uptime_seconds", "Seconds since this process started.", () => process.uptime())),
};

export function renderMetrics(): string {
  return `${registry.flatMap((m) => m.render()).join("\n")}\n`;
}

export const metricsContentType = "text/plain; version=0.0.4; charset=utf-8";
