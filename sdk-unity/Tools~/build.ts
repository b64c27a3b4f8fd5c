import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { monoTools } from "../../tests/helpers/tools.ts";

/** The package's .cs files under `dir`, for mcs. */
export const sources = (dir: string) =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".cs"))
    .map((f) => join(dir, f));

export const packageDir = join(import.meta.dir, "..");

/** One assembly compiled with mcs at C# 7.2 into `out`; its output when it does not compile. */
export function compileCs(
  mcs: string,
  out: string,
  a: { target: "library" | "exe"; name: string; files: string[]; refs: string[] },
): { ok: boolean; text: string } {
  const r = Bun.spawnSync(
    [
      mcs,
      "-langversion:7.2",
      "-nologo",
      "-warnaserror-",
      `-target:${a.target}`,
      `-out:${join(out, a.name)}`,
      "-r:System.Net.Http",
      "-r:System.Numerics",
      ...a.refs.map((x) => `-r:${x}`),
      ...a.files,
    ],
    { cwd: out, timeout: 150_000 },
  );
  return { ok: r.exitCode === 0, text: `${r.stdout.toString()}${r.stderr.toString()}` };
}

/**
 * Compiles the core (Savepoint.Client.dll) and the console idle game (IdleGame.exe) with Mono's mcs at
 * C# 7.2 into `out`, beside Newtonsoft.Json.dll. Throws with mcs's output when something does not compile.
 */
export async function buildIdleGame(out: string): Promise<string> {
  const tools = monoTools();
  if (!tools)
    throw new Error(
      "Mono is missing: apt-get install mono-complete libnewtonsoft-json-cil-dev (npm test installs it as root)",
    );
  mkdirSync(out, { recursive: true });
  const newtonsoft = join(out, "Newtonsoft.Json.dll");
  await Bun.write(newtonsoft, Bun.file(tools.newtonsoft));
  const mcs = (target: "library" | "exe", name: string, files: string[], refs: string[]) => {
    const r = compileCs(tools.mcs, out, { target, name, files, refs });
    if (!r.ok) throw new Error(`mcs ${name}:\n${r.text}`);
  };
  mcs("library", "Savepoint.Client.dll", sources(join(packageDir, "Runtime", "Core")), [newtonsoft]);
  mcs("exe", "IdleGame.exe", sources(join(packageDir, "Samples~", "IdleGame", "Console")), [
    newtonsoft,
    join(out, "Savepoint.Client.dll"),
  ]);
  return join(out, "IdleGame.exe");
}
