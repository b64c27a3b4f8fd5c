/** A closed-loop load generator: `workers` clients, each sending its next request when the last answers. */
export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

export async function runLoad(
  workers: number,
  seconds: number,
  makeWorker: (index: number) => Promise<() => Promise<boolean>>,
): Promise<LoadResult> {
  const senders = await Promise.all(Array.from({ length: workers }, (_, i) => makeWorker(i)));
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    senders.map(async (send) => {
      while (performance.now() < end) {
        const t = performance.now();
        const ok = await send();
        latencies.push(performance.now() - t);
        if (!ok) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return {
    requests: latencies.length,
    errors,
    seconds: elapsed,
    rps: latencies.length / elapsed,
    p50: at(0.5),
    p99: at(0.99),
  };
}

/** Resident memory of a process in MiB, from /proc. */
export async function rssMiB(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`)
    .text()
    .catch(() => "");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat (clock ticks of 1/100 s). */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await Bun.file(`/proc/${pid}/stat`)
    .text()
    .catch(() => "");
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** `runLoad` with the server's CPU per request: `pids` are the processes that serve it. */
export async function measure(
  pids: number[],
  workers: number,
  seconds: number,
  makeWorker: (index: number) => Promise<() => Promise<boolean>>,
) {
  const senders = await Promise.all(Array.from({ length: workers }, (_, i) => makeWorker(i)));
  const cpu = () => Promise.all(pids.map(cpuSeconds));
  const before = await cpu();
  const result = await runLoad(workers, seconds, async (i) => senders[i]!);
  const after = await cpu();
  const served = Math.max(1, result.requests - result.errors);
  // Each process's share, for the capacity figures (docs/operating.md#capacity): which process a load needs more of.
  const cpuPerRequestByPid = Object.fromEntries(pids.map((pid, i) => [pid, (after[i]! - before[i]!) / served]));
  const used = after.reduce((a, b, i) => a + b - before[i]!, 0);
  return { ...result, cpuPerRequest: used / served, cpuPerRequestByPid };
}
export type Measured = Awaited<ReturnType<typeof measure>>;
