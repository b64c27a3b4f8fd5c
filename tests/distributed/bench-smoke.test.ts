import { expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../helpers/infra.ts";

/**
 * `bun run bench` on a fresh machine: a brief run (BENCH_SMOKE=1) prints every row of issue 11's
 * targets and writes each one to latest.json with its figures. Only that they are printed and
 * recorded is checked: timing never fails a test, and a failure shows the run's whole output.
 */

/** A busy machine (2 cores, other suites running) has taken 90 s; the limit leaves room for far worse. */
const smokeDeadlineMs = 540_000;
const ids = [
  "G1",
  "G1c",
  "G2",
  "G2s",
  "G3e",
  "G4",
  "G4m",
  "G3i",
  "G5e",
  "G6",
  "R1",
  "M1",
  "G3",
  "G5d",
  "D1",
  "D2",
  "L1",
  "S1",
  "S2",
  "C1",
  "C2",
];

test(
  "the benchmark's smoke run prints and records every row",
  async () => {
    const out = tempDir("bench-out");
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "..", "bench", "main.ts")], {
      env: { ...process.env, BENCH_SMOKE: "1", BENCH_OUT: out },
      stdout: "pipe",
      stderr: "pipe",
    });
    // Read as it comes, so a run that has to be stopped still shows how far it got.
    const printed = { stdout: "", stderr: "" };
    const pump = async (stream: ReadableStream<Uint8Array>, key: keyof typeof printed) => {
      for await (const chunk of stream) printed[key] += new TextDecoder().decode(chunk);
    };
    const pumped = Promise.all([pump(proc.stdout, "stdout"), pump(proc.stderr, "stderr")]);
    // Stopped here, before bun's own timeout would end the test without a word.
    const late = setTimeout(() => proc.kill("SIGKILL"), smokeDeadlineMs);
    const code = await proc.exited;
    clearTimeout(late);
    await Promise.race([pumped, Bun.sleep(2_000)]);
    const { stdout, stderr } = printed;
    // A failure names its cause: the run's own output, both streams, is in the assertion's message.
    const output = `exit code ${code}${proc.signalCode === "SIGKILL" ? ` (stopped after ${smokeDeadlineMs / 1000} s)` : ""}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
    expect(code, output).toBe(0);
    for (const id of ids) expect(stdout, output).toMatch(new RegExp(`^${id}\\s+\\S+\\s+\\S+.*(holds|MISSES)`, "m"));
    const latest = (await Bun.file(join(out, "latest.json")).json()) as {
      rows: Record<string, { measured: number; target: string; holds: boolean; raw: object }>;
      absolute: Record<string, number>;
    };
    expect(Object.keys(latest.rows).sort()).toEqual([...ids].sort());
    for (const id of ids) {
      const r = latest.rows[id]!;
      expect(Number.isFinite(r.measured)).toBe(true);
      expect(typeof r.holds).toBe("boolean");
      expect(r.target).toMatch(/^[<>]=/);
      expect(Object.keys(r.raw).length).toBeGreaterThan(0);
    }
    expect(Object.keys(latest.absolute)).toHaveLength(3);
  },
  smokeDeadlineMs + 30_000,
);
