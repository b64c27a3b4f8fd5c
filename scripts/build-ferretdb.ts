import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { ferretdbBin } from "../tests/helpers/tools.ts";

/**
 * Builds FerretDB 1.24.2 (a MongoDB-wire server) once from the Go module proxy into the tool cache,
 * for the tests and for `npm run dev:distributed`. Needs Go; about 1 GB of Go caches and a few minutes
 * on a new machine. Resolves at once when it is already built.
 */
export async function buildFerretdb(): Promise<string> {
  if (await Bun.file(ferretdbBin).exists()) return ferretdbBin;
  if (!Bun.which("go"))
    throw new Error(`FerretDB is not built at ${ferretdbBin} and Go is missing: install Go, or set MONGODB_URL`);
  mkdirSync(dirname(ferretdbBin), { recursive: true });
  console.log("Building FerretDB 1.24.2 once (a few minutes on a new machine)...");
  const proc = Bun.spawn(["go", "build", "-o", ferretdbBin, "."], {
    cwd: join(import.meta.dir, "..", "infra", "ferretdb"),
    env: { ...process.env, GOFLAGS: "-mod=mod" },
    stdout: "inherit",
    stderr: "inherit",
  });
  if ((await proc.exited) !== 0) throw new Error("the FerretDB build failed (go build in infra/ferretdb)");
  return ferretdbBin;
}
