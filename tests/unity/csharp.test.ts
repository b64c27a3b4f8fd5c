import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileCs, sources } from "../../sdk-unity/Tools~/build.ts";
import { admin, newTenant } from "../helpers/api.ts";
import { adminToken, startEmbedded } from "../helpers/deployments.ts";
import { mint, newSigner, startKeyServer, testProviders } from "../helpers/identity-providers.ts";
import { monoTools } from "../helpers/tools.ts";

/**
 * The C# client (sdk-unity/): its core, its Unity layer against the stand-in UnityEngine of
 * tests/unity/unity-stub, the sample game, and the NUnit suite of tests/unity/cs run against a real embedded
 * server. Each C# test is one bun test here, so a failure names the C# test and its message.
 */
const root = join(import.meta.dir, "..", "..");
const pkg = join(root, "sdk-unity");
const tools = monoTools();
const out = mkdtempSync(join(tmpdir(), "savepoint-cs-"));

/** The NUnit run is asynchronous: the embedded server it talks to answers from this process's event loop. */
async function runAsync(cmd: string[], env: Record<string, string>) {
  const p = Bun.spawn(cmd, { cwd: out, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => p.kill(9), 240_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  clearTimeout(timer);
  return { code, text: `${stdout}${stderr}` };
}

const compile = (name: string, target: "library" | "exe", files: string[], refs: string[]) =>
  compileCs(tools!.mcs, out, { target, name, files, refs });

type Result = { name: string; ok: boolean; skipped: boolean; message: string };
let results: Result[] = [];
let built: Record<string, { ok: boolean; text: string }> = {};
let suiteError = "";

if (tools) {
  const newtonsoft = join(out, "Newtonsoft.Json.dll");
  await Bun.write(newtonsoft, Bun.file(tools.newtonsoft));
  const core = join(out, "Savepoint.Client.dll");
  const stub = join(out, "UnityEngine.dll");
  built = {
    core: compile("Savepoint.Client.dll", "library", sources(join(pkg, "Runtime", "Core")), [newtonsoft]),
    stub: compile("UnityEngine.dll", "library", sources(join(import.meta.dir, "unity-stub")), []),
  };
  built.unity = compile("Savepoint.Client.Unity.dll", "library", sources(join(pkg, "Runtime", "Unity")), [
    newtonsoft,
    core,
    stub,
  ]);
  built.sampleScene = compile("IdleGameScene.dll", "library", sources(join(pkg, "Samples~", "IdleGame", "Unity")), [
    newtonsoft,
    core,
    stub,
    join(out, "Savepoint.Client.Unity.dll"),
  ]);
  built.sampleGame = compile("IdleGame.exe", "exe", sources(join(pkg, "Samples~", "IdleGame", "Console")), [
    newtonsoft,
    core,
  ]);
  built.tests = compile("Savepoint.Tests.dll", "library", sources(join(import.meta.dir, "cs")), [
    newtonsoft,
    core,
    stub,
    join(out, "Savepoint.Client.Unity.dll"),
    tools.nunitFramework,
    "System.Xml.Linq",
  ]);
  if (Object.values(built).every((b) => b.ok)) {
    const server = await startEmbedded();
    try {
      // Provider sign-in needs signed tokens: a Firebase-like key set here, tokens minted for two users.
      const signer = await newSigner("RS256");
      const jwksUrl = startKeyServer().publish("/firebase", [signer]);
      const tenant = await newTenant(server);
      await admin(server, "PUT", `/admin/v1/projects/${tenant.projectId}/environments/stage/auth-providers/firebase`, {
        enabled: true,
        ...testProviders.firebase.settings,
        jwksUrl,
      });
      const [a, b] = [`u-${crypto.randomUUID()}`, `u-${crypto.randomUUID()}`];
      const tokens = {
        a1: await mint("firebase", signer, a),
        a2: await mint("firebase", signer, a),
        a3: await mint("firebase", signer, a),
        b1: await mint("firebase", signer, b),
      };
      const vectors = process.env.SAVEPOINT_VECTORS_DIR ?? join(root, "sdk-vectors");
      const r = await runAsync(
        [
          tools.mono,
          "--debug",
          tools.nunitConsole,
          "-nologo",
          "-noshadow",
          "-nothread",
          "-labels",
          "-timeout=30000",
          `-xml=${join(out, "results.xml")}`,
          join(out, "Savepoint.Tests.dll"),
        ],
        {
          SAVEPOINT_URL: server.base,
          SAVEPOINT_ADMIN_TOKEN: adminToken,
          SAVEPOINT_VECTORS_DIR: vectors,
          SAVEPOINT_IDLE_GAME: join(out, "IdleGame.exe"),
          SAVEPOINT_PACKAGE: pkg,
          MONO_BIN: tools.mono,
          SAVEPOINT_PROVIDER_KEY: tenant.key,
          // The suite's save folders, removed with the build when it ends.
          SAVEPOINT_CS_TMP: join(out, "tmp"),
          SAVEPOINT_PROVIDER_TOKENS: JSON.stringify(tokens),
        },
      );
      const xml = existsSync(join(out, "results.xml")) ? readFileSync(join(out, "results.xml"), "utf8") : "";
      results = parseNunit(xml);
      if (results.length === 0) suiteError = `NUnit reported no tests (exit ${r.code}):\n${r.text.slice(-4000)}`;
    } finally {
      await server.stop();
    }
  } else suiteError = "a part did not compile: the suite did not run";
  rmSync(out, { recursive: true, force: true });
}

function unescapeCs(s: string) {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

/** NUnit 2.6's XML: one <test-case> per test, with <message> under <failure> or <reason>. */
function parseNunit(xml: string): Result[] {
  const cases: Result[] = [];
  const re =
    /<test-case name="([^"]+)"[^>]*?executed="(True|False)"[^>]*?(?:result="([^"]+)")?[^>]*?(\/>|>([\s\S]*?)<\/test-case>)/g;
  for (const m of xml.matchAll(re)) {
    const name = unescapeCs(m[1]!).replace(/^Savepoint\.Tests\./, "");
    const result = /result="([^"]+)"/.exec(m[0])?.[1] ?? (m[2] === "True" ? "Success" : "Ignored");
    const message = /<message><!\[CDATA\[([\s\S]*?)\]\]><\/message>/.exec(m[5] ?? "")?.[1] ?? "";
    const trace = /<stack-trace><!\[CDATA\[([\s\S]*?)\]\]><\/stack-trace>/.exec(m[5] ?? "")?.[1] ?? "";
    cases.push({
      name,
      ok: result === "Success",
      skipped: result === "Ignored",
      message: `${result}: ${message}\n${trace.split("\n").slice(0, 6).join("\n")}`,
    });
  }
  return cases;
}

describe("C# client (sdk-unity)", () => {
  if (!tools) {
    // Only where the packages cannot be installed (not root, no apt-get): scripts/ensure-test-tools.ts installs them otherwise.
    test.skip("Mono is not installed here (apt-get install mono-complete libnewtonsoft-json-cil-dev nunit-console)", () => {});
    return;
  }
  for (const [name, b] of Object.entries(built)) {
    test(`compiles with mcs -langversion:7.2: ${name}`, () => {
      if (!b.ok) throw new Error(b.text);
    });
  }
  test("the NUnit suite ran", () => {
    expect(suiteError).toBe("");
  });
  for (const r of results) {
    if (r.skipped) test.skip(`${r.name} (${r.message.split("\n")[0]})`, () => {});
    else
      test(r.name, () => {
        if (!r.ok) throw new Error(r.message);
      });
  }
  // The README's one command: it builds the game, starts its own server and plays; a restart resumes.
  test("`npm run sdk-unity:example` plays the idle game against its own server, and a second run resumes its saves", async () => {
    const dir = join(out, "example");
    const play = async () => {
      const p = Bun.spawn(["npm", "run", "sdk-unity:example"], {
        cwd: root,
        env: { ...process.env, SAVEPOINT_IDLE_DIR: dir, SAVEPOINT_IDLE_TICKS: "3" },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [text, errors, code] = await Promise.all([
        new Response(p.stdout).text(),
        new Response(p.stderr).text(),
        p.exited,
      ]);
      return { code, text: `${text}${errors}` };
    };
    const first = await play();
    expect({ code: first.code, tail: first.text.slice(-600) }).toMatchObject({ code: 0 });
    expect(first.text).toContain("tick 3:");
    const coins = (text: string) => Number(/quit: \w+, server has coins (\d+)/.exec(text)?.[1]);
    expect(coins(first.text)).toBeGreaterThan(0);
    // SAVEPOINT_IDLE_DIR keeps the device and the server: the second run goes on from the first one's coins.
    const second = await play();
    expect(second.code).toBe(0);
    expect(coins(second.text)).toBeGreaterThan(coins(first.text));
  }, 240_000);
});
