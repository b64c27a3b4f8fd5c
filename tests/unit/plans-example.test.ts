import { expect, test } from "bun:test";
import { join } from "node:path";
import { defaultPlans, loadPlans, PlanName } from "../../shared/contract/plans.ts";
import { tempDir } from "../helpers/infra.ts";

/** infra/plans/example.json and its README: a full SAVEPOINT_PLANS file that cannot go stale. */
const folder = join(import.meta.dir, "..", "..", "infra", "plans");
const example = join(folder, "example.json");

/** Every leaf field's dotted path, such as `snapshot.keptPerSlot`. */
const leaves = (value: object, prefix = ""): string[] =>
  Object.entries(value).flatMap(([k, v]) =>
    v !== null && typeof v === "object" ? leaves(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  );

test("the example catalog loads with the real loader and is the built-in catalog, every plan and every field written out", async () => {
  expect(await loadPlans(example)).toEqual(defaultPlans);
  const raw = (await Bun.file(example).json()) as Record<string, object>;
  expect(Object.keys(raw).sort()).toEqual([...PlanName.options].sort());
  // Written out, not filled in by the loader's defaults: every field of the built-in plan is in the file.
  for (const name of PlanName.options) expect(leaves(raw[name]!).sort()).toEqual(leaves(defaultPlans[name]).sort());
});

test("the README explains every field of the example", async () => {
  const readme = await Bun.file(join(folder, "README.md")).text();
  for (const field of leaves(defaultPlans.free)) expect(readme).toContain(`| \`${field}\` |`);
});

test("a catalog without one of the plans is refused, naming the file", async () => {
  const raw = (await Bun.file(example).json()) as Record<string, object>;
  delete raw.growth;
  const file = join(tempDir("plans"), "plans.json");
  await Bun.write(file, JSON.stringify(raw));
  const err = (await loadPlans(file).catch((e) => e)) as Error;
  expect(err.message).toMatch(/SAVEPOINT_PLANS: .*plans\.json is not a valid plan catalog: growth: /);
  // One line for a person reading a failed start, not the validator's multi-line dump.
  expect(err.message).not.toContain("\n");
});
