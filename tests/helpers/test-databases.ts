/**
 * PostgreSQL databases the test run creates (FerretDB's backend), named after the run so that they
 * can all be dropped when it ends, however it ends. `npm test` (tests/run.ts) sets
 * SAVEPOINT_TEST_RUN and drops `sp_<run>_*` after bun exits, failed suites and crashes included; a
 * run started with plain `bun test` is named after its own pid, and a later run drops what a run
 * that no longer exists left behind.
 */
const pgHost = process.env.SAVEPOINT_PG_HOST ?? "127.0.0.1";
const pgPort = Number(process.env.SAVEPOINT_PG_PORT ?? 5432);
const pgUser = process.env.SAVEPOINT_PG_USER ?? "postgres";
export const pgTarget = { host: pgHost, port: pgPort, user: pgUser };

/** `r<pid>`: the pid of the process that owns the run (the npm test wrapper, else bun itself). */
export const runTag = () => process.env.SAVEPOINT_TEST_RUN ?? `r${process.pid}`;

/** A fresh database name that says which run made it. */
export const newDatabaseName = () => `sp_${runTag()}_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;

function psqlSync(sql: string): string | undefined {
  const bin = Bun.which("psql");
  if (!bin) return undefined;
  const args = [bin, "-h", pgHost, "-p", String(pgPort), "-U", pgUser, "-d", "postgres", "-Atc", sql];
  const out = Bun.spawnSync(args, {
    stdout: "pipe",
    stderr: "ignore",
    env: { ...process.env, PGCONNECT_TIMEOUT: "3" },
  });
  return out.exitCode === 0 ? out.stdout.toString() : undefined;
}

/** Drops one database (synchronous: exit handlers cannot wait). */
export function dropDatabaseSync(database: string): void {
  psqlSync(`drop database if exists ${database} with (force)`);
}

const databasesLike = (pattern: string) =>
  (psqlSync(`select datname from pg_database where datname like '${pattern}'`) ?? "").split("\n").filter(Boolean);

/** Drops every database of run `tag`; returns their names. */
export function dropRunDatabases(tag: string): string[] {
  if (!/^r\d+$/.test(tag)) throw new Error(`not a run tag: ${tag}`);
  const names = databasesLike(`sp\\_${tag}\\_%`);
  for (const name of names) dropDatabaseSync(name);
  return names;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * Drops what runs that no longer exist left behind: `sp_r<pid>_*` of a dead pid, and databases of the
 * older naming (`sp_faults_*`) that nobody is connected to.
 */
export function dropOrphanDatabases(): string[] {
  const dropped: string[] = [];
  for (const name of databasesLike("sp\\_r%")) {
    const pid = Number(/^sp_r(\d+)_/.exec(name)?.[1]);
    if (Number.isInteger(pid) && !alive(pid)) dropped.push(name);
  }
  const busy = new Set(
    (psqlSync("select distinct datname from pg_stat_activity where datname is not null") ?? "").split("\n"),
  );
  dropped.push(...databasesLike("sp\\_faults\\_%").filter((name) => !busy.has(name)));
  for (const name of dropped) dropDatabaseSync(name);
  return dropped;
}
