import { expect, test } from "bun:test";
import { dropOrphanDatabases, dropRunDatabases, newDatabaseName, pgTarget, runTag } from "../helpers/test-databases.ts";

/** The test run's PostgreSQL databases (FerretDB's backend) never outlive it. */
const psql = (sql: string) =>
  Bun.spawnSync(
    ["psql", "-h", pgTarget.host, "-p", String(pgTarget.port), "-U", pgTarget.user, "-d", "postgres", "-Atc", sql],
    { stdout: "pipe", stderr: "pipe" },
  );
const exists = (name: string) =>
  psql(`select 1 from pg_database where datname = '${name}'`).stdout.toString().trim() === "1";
const reachable = Bun.which("psql") !== null && psql("select 1").exitCode === 0;

test("database names carry the run's tag", () => {
  expect(newDatabaseName()).toMatch(new RegExp(`^sp_${runTag()}_[0-9a-f]{12}$`));
});

test.if(reachable)("a run's databases are dropped when it ends, and a dead run's by the next run", async () => {
  // Two stand-in runs, never this one: dropping this run's databases would pull the store from under
  // the suites still running. One is alive (a sleeping child), one is gone.
  const live = Bun.spawn(["sleep", "60"]);
  const gone = Bun.spawnSync(["true"]).pid;
  const liveTag = `r${live.pid}`;
  const mine = `sp_${liveTag}_${crypto.randomUUID().slice(0, 8)}`;
  const orphan = `sp_r${gone}_${crypto.randomUUID().slice(0, 8)}`;
  try {
    for (const name of [mine, orphan]) expect(psql(`create database ${name}`).exitCode).toBe(0);

    // A live run's database is not an orphan; a dead one's is.
    expect(dropOrphanDatabases()).toContain(orphan);
    expect(exists(orphan)).toBe(false);
    expect(exists(mine)).toBe(true);

    expect(dropRunDatabases(liveTag)).toEqual([mine]);
    expect(exists(mine)).toBe(false);
  } finally {
    live.kill();
  }
});
