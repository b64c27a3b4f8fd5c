/**
 * Row L1 (issue 22): how many requests a session's per-minute limit admits when its requests alternate
 * between gateway copies. The limit is counted per account in fixed minutes (services/gateway/limits.ts),
 * so a burst that straddled two minutes could rightly be admitted twice: the burst waits for a fresh
 * minute when too little of the current one is left, and says whether it still straddled.
 */

export interface Admitted {
  limit: number;
  sent: number;
  admitted: number;
  byStatus: Record<string, number>;
  gateways: number;
  straddled: boolean;
  seconds: number;
}

const minuteOf = (ms: number) => Math.floor(ms / 60_000);

/** Sends `times` x `limit` GETs of the session's slot, request i through `bases[i % n]`, `concurrency` at a time; counts the 2xx. */
export async function admittedThroughGateways(
  bases: string[],
  key: string,
  limit: number,
  options: { times?: number; concurrency?: number; marginMs?: number } = {},
): Promise<Admitted> {
  const { times = 3, concurrency = 4, marginMs = 20_000 } = options;
  const json = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const res = await fetch(`${bases[0]}/api/v1/accounts`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ slot: { slotId: "l", data: { n: 1 } } }),
  });
  if (res.status !== 201)
    throw new Error(`bench set-up: L1 account creation answered ${res.status}: ${await res.text()}`);
  const created = (await res.json()) as { accountId: string; accountSessionToken: string };
  const path = `/api/v1/accounts/${created.accountId}/slots/l`;
  const headers = { ...json, "x-service-account-session": created.accountSessionToken };

  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await Bun.sleep(left + 100);
  const sent = times * limit;
  const byStatus: Record<string, number> = {};
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < sent; i = next++) {
        const answer = await fetch(`${bases[i % bases.length]}${path}`, { headers });
        await answer.arrayBuffer();
        byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1;
      }
    }),
  );
  const ended = Date.now();
  const admitted = Object.entries(byStatus).reduce((n, [status, count]) => (Number(status) < 300 ? n + count : n), 0);
  return {
    limit,
    sent,
    admitted,
    byStatus,
    gateways: bases.length,
    straddled: minuteOf(started) !== minuteOf(ended),
    seconds: (ended - started) / 1000,
  };
}
