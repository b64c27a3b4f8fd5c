import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import type { Logger } from "../../shared/observe/log.ts";
import { mongo } from "./infra.ts";

/**
 * What a deployment kept, as text, for tests that prove a secret is never logged or stored: every
 * log line and every stored byte.
 */

/** A logger that keeps every line it is given, unredacted: stricter than the real one. */
export function capturingLogger(lines: string[]): Logger {
  const keep = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    void lines.push(JSON.stringify({ level, msg, ...fields }));
  const log: Logger = {
    debug: keep("debug"),
    info: keep("info"),
    warn: keep("warn"),
    error: keep("error"),
    child: () => log,
  };
  return log;
}

/** Every file in a folder (SQLite files and their WAL, log files), read as text. */
export const filesIn = (dir: string, encoding: BufferEncoding = "latin1") =>
  readdirSync(dir).map((f) => readFileSync(join(dir, f), encoding));

/** Every document of every collection of a MongoDB database, as JSON. */
export async function mongoDump(dbName: string): Promise<string[]> {
  const client = await new MongoClient((await mongo()).url).connect();
  try {
    const db = client.db(dbName);
    return await Promise.all(
      (await db.listCollections().toArray()).map(async (c) =>
        JSON.stringify(await db.collection(c.name).find().toArray()),
      ),
    );
  } finally {
    await client.close();
  }
}
