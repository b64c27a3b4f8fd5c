import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/**
 * Builds `sdk/dist`: the ESM bundle, the file adapter's entry, a minified browser bundle, a minified
 * `<script>` build that sets `globalThis.Savepoint`, and one bundled declaration file per entry
 * (dts-bundle-generator, which also type-checks them). Prints the browser bundle's minified+gzipped
 * size, measured with zlib. `npm pack` and `npm publish` in sdk/ run it first (the `prepack` script).
 */
const sdk = join(import.meta.dir, "..");
const dist = join(sdk, "dist");
const src = (f: string) => join(sdk, "src", f);

async function bundle(config: Parameters<typeof Bun.build>[0]) {
  const out = await Bun.build(config);
  if (!out.success) {
    for (const log of out.logs) console.error(log);
    throw new Error("sdk build failed");
  }
}

/** One self-contained `dist/<entry>.d.ts`: a consumer needs no other declaration file of ours. */
async function declarations(entry: string) {
  const bin = join(sdk, "..", "node_modules", ".bin", "dts-bundle-generator");
  const out = join(dist, `${entry}.d.ts`);
  const args = [
    "--project",
    join(sdk, "tsconfig.json"),
    "--no-banner",
    "--external-types",
    "node",
    "-o",
    out,
    "--",
    src(`${entry}.ts`),
  ];
  // Asynchronous, so the entries type-check side by side and the caller's event loop keeps running.
  const run = Bun.spawn([bin, ...args], { stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([
    run.exited,
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
  ]);
  if (code !== 0) throw new Error(`sdk declarations failed (${entry}):\n${stdout}\n${stderr}`);
}

const globalDeclarations = `import type * as SavepointModule from "./index.js";

declare global {
  /** The SDK as \`<script src="savepoint.global.min.js">\` sets it: the same exports as \`@savepoint/client\`. */
  var Savepoint: typeof SavepointModule;
}

export {};
`;

export async function buildSdk(): Promise<{ minBytes: number; gzipBytes: number }> {
  rmSync(dist, { recursive: true, force: true });
  await bundle({ entrypoints: [src("index.ts")], outdir: dist, format: "esm", target: "browser", naming: "index.js" });
  await bundle({ entrypoints: [src("file.ts")], outdir: dist, format: "esm", target: "node", naming: "file.js" });
  await bundle({
    entrypoints: [src("index.ts")],
    outdir: dist,
    format: "esm",
    target: "browser",
    minify: true,
    naming: "savepoint.browser.min.js",
  });
  await bundle({
    entrypoints: [src("global.ts")],
    outdir: dist,
    format: "iife",
    target: "browser",
    minify: true,
    naming: "savepoint.global.min.js",
  });
  await Promise.all(["index", "file"].map(declarations));
  // `./browser` is the index bundle minified: the same declarations. `./global` declares the global it sets.
  writeFileSync(join(dist, "browser.d.ts"), 'export * from "./index.js";\n');
  writeFileSync(join(dist, "global.d.ts"), globalDeclarations);
  const made = ["index.d.ts", "file.d.ts", "browser.d.ts", "global.d.ts"];
  const stray = (readdirSync(dist) as string[]).filter((f) => f.endsWith(".d.ts") && !made.includes(f));
  if (stray.length) throw new Error(`sdk declarations not bundled: ${stray.join(", ")}`);
  const min = readFileSync(join(dist, "savepoint.browser.min.js"));
  const sizes = { minBytes: min.length, gzipBytes: gzipSync(min, { level: 9 }).length };
  writeFileSync(join(dist, "size.json"), `${JSON.stringify(sizes)}\n`);
  return sizes;
}

if (import.meta.main) {
  const { minBytes, gzipBytes } = await buildSdk();
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const size = `${kib(minBytes)} minified, ${kib(gzipBytes)} minified+gzipped (${gzipBytes} bytes, zlib level 9)`;
  console.log(`@savepoint/client built in sdk/dist: browser bundle ${size}`);
}
