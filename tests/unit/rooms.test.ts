import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The rooms of shared/, lowest first (README, How it is built): a file imports only from its own room
 * or from a lower one, so the lowest layers (logs and metrics, pure helpers) never depend on start-up code.
 */
const rooms = [
  ["util"],
  ["observe"],
  ["contract"],
  ["store", "bus"],
  ["limits", "revocation", "synced"],
  ["serving"],
  ["process"],
  ["backup"],
];
const level = new Map(rooms.flatMap((names, i) => names.map((n) => [n, i] as const)));
const shared = join(import.meta.dir, "..", "..", "shared");

test("every room of shared/ is placed, and no import in shared/ runs upwards between its rooms", () => {
  const present = readdirSync(shared, { withFileTypes: true }).filter((d) => d.isDirectory());
  expect(present.map((d) => d.name).filter((n) => !level.has(n))).toEqual([]);
  const upwards: string[] = [];
  for (const room of present.map((d) => d.name)) {
    for (const file of readdirSync(join(shared, room), { recursive: true, encoding: "utf8" })) {
      if (!file.endsWith(".ts")) continue;
      const text = readFileSync(join(shared, room, file), "utf8");
      for (const [, target] of text.matchAll(/from "(?:\.\.\/)+([a-z-]+)\/[^"]*"/g)) {
        if (level.has(target!) && level.get(target!)! > level.get(room)!) upwards.push(`${room}/${file} -> ${target}`);
      }
    }
  }
  expect(upwards).toEqual([]);
});
