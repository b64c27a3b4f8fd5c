import { type Subprocess, spawn } from "bun";

/**
 * The children of `npm run dev:distributed`: each one's output goes to this terminal a line at a time
 * with its name in front, and they are stopped together, in the reverse of their start order.
 */
export interface Child {
  name: string;
  /** Stop order: the highest tier first (gateways, then services, then the store, then NATS). */
  tier: number;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** Its last lines, for the message when it exits on its own. */
  tail: string[];
}

const children: Child[] = [];
let stopping = false;
/** Called when a child exits before `stopAll`: it names the child and its last lines. */
let onUnexpectedExit: (child: Child, code: number | null) => void = () => {};

export function whenAChildDies(handler: typeof onUnexpectedExit): void {
  onUnexpectedExit = handler;
}

async function pump(child: Child, stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream) {
  const decoder = new TextDecoder();
  let rest = "";
  for await (const chunk of stream) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = lines.pop()!;
    for (const line of lines) {
      child.tail.push(line);
      if (child.tail.length > 20) child.tail.shift();
      out.write(`[${child.name}] ${line}\n`);
    }
  }
  if (rest) out.write(`[${child.name}] ${rest}\n`);
}

/** Starts `cmd` as child `name`; its output is prefixed with the name. */
export function startChild(name: string, tier: number, cmd: string[], env: Record<string, string | undefined>): Child {
  const proc = spawn(cmd, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const child: Child = { name, tier, proc, tail: [] };
  children.push(child);
  void pump(child, proc.stdout, process.stdout);
  void pump(child, proc.stderr, process.stderr);
  void proc.exited.then((code) => {
    if (!stopping) onUnexpectedExit(child, code);
  });
  return child;
}

const running = (c: Child) => c.proc.exitCode === null && c.proc.signalCode === null;

export const runningChildren = () => children.filter(running);

async function stopOne(child: Child, graceMs: number) {
  child.proc.kill("SIGTERM");
  const done = await Promise.race([child.proc.exited.then(() => true), Bun.sleep(graceMs).then(() => false)]);
  if (done) return;
  process.stderr.write(
    `dev:distributed: ${child.name} (pid ${child.proc.pid}) still running ${graceMs} ms after SIGTERM: killed\n`,
  );
  child.proc.kill("SIGKILL");
  await child.proc.exited;
}

/**
 * SIGTERM to every child, a tier at a time from the highest (the copies of a tier together), so
 * gateways drain while the services still answer and the store outlives its clients; a child still
 * running after `graceMs` is killed. Resolves once every child has exited.
 */
export async function stopAll(graceMs = 15_000): Promise<void> {
  stopping = true;
  const tiers = [...new Set(children.map((c) => c.tier))].sort((a, b) => b - a);
  for (const tier of tiers)
    await Promise.all(children.filter((c) => c.tier === tier && running(c)).map((c) => stopOne(c, graceMs)));
}
