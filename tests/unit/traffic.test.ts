import { expect, test } from "bun:test";
import { quantileMs } from "../../services/config/overview.ts";
import { createTraffic } from "../../services/gateway/traffic.ts";
import type { Bus } from "../../shared/bus/port.ts";
import { latencyBoundsMs } from "../../shared/contract/overview.ts";
import { createLogger } from "../../shared/observe/log.ts";

/** A bus that keeps each traffic report, or refuses while `down`. */
function recordingBus() {
  const reports: any[] = [];
  const state = { down: false };
  const bus = {
    request: async (_subject: string, input: any) => {
      if (state.down) throw new Error("no answer");
      reports.push(structuredClone(input));
      return { stored: input.minutes.length };
    },
  } as unknown as Bus;
  return { bus, reports, state };
}

const log = createLogger({ test: "traffic" });

test("a request of known latency lands in its bucket, and p50/p99 read that bucket's upper bound", async () => {
  const { bus, reports } = recordingBus();
  const traffic = createTraffic(bus, log, 60_000, () => 120 * 60_000);
  traffic.record("prj_a:stage", "syncSlot", 200, false, 30); // 25 < 30 <= 50
  traffic.record("prj_a:stage", "syncSlot", 409, true, 30);
  traffic.record("prj_a:stage", "getAccount", 503, false, 700); // 500 < 700 <= 1000
  traffic.record("prj_a:prod", "getAccount", 200, false, 60_000); // slower than every bound
  await traffic.flush();
  traffic.stop();
  expect(reports).toHaveLength(1);
  const [stage, prod] = reports[0].minutes;
  const at50 = latencyBoundsMs.indexOf(50);
  const at1000 = latencyBoundsMs.indexOf(1000);
  expect(stage).toMatchObject({
    envId: "prj_a:stage",
    minute: 120,
    requests: 3,
    syncs: 2,
    conflicts: 1,
    clientErrors: 1,
    serverErrors: 1,
  });
  expect(stage.latency[at50]).toBe(2);
  expect(stage.latency[at1000]).toBe(1);
  expect(prod.latency[latencyBoundsMs.length]).toBe(1);
  expect(quantileMs(stage.latency, 0.5)).toBe(50);
  expect(quantileMs(stage.latency, 0.99)).toBe(1000);
  expect(quantileMs(prod.latency, 0.5)).toBe(10_000);
  expect(quantileMs(new Array(latencyBoundsMs.length + 1).fill(0), 0.5)).toBeNull();
});

test("a report billing did not take is sent again with the next one, added up; nothing is sent when nothing was counted", async () => {
  const { bus, reports, state } = recordingBus();
  const traffic = createTraffic(bus, log, 60_000, () => 5 * 60_000);
  await traffic.flush();
  expect(reports).toHaveLength(0);
  traffic.record("e", "syncAccountData", 200, false, 1);
  state.down = true;
  await traffic.flush();
  state.down = false;
  traffic.record("e", "syncAccountData", 200, false, 1);
  await traffic.flush();
  traffic.stop();
  expect(reports).toHaveLength(1);
  expect(reports[0].minutes).toHaveLength(1);
  expect(reports[0].minutes[0]).toMatchObject({ requests: 2, syncs: 2 });
});
