import type { Database, Statement } from "bun:sqlite";

/**
 * The reads of one turn of the event loop share one read transaction. A read outside a transaction is
 * a transaction of its own, and in WAL mode each one takes and drops a lock on the shared-memory index
 * with system calls (issue 30: two `fcntl` per read, three reads per save). The first read of a turn
 * begins it; the turn's end, or the next write transaction, ends it. This connection is the store's only
 * writer and ends the read before it writes, so a read never misses a write it made.
 */
export class ReadTurn {
  private open = false;
  private readonly begin: Statement;
  private readonly end: Statement;

  constructor(private readonly db: Database) {
    this.begin = db.prepare("BEGIN");
    this.end = db.prepare("COMMIT");
  }

  /** Before a read: inside a transaction already (the writer's, or this turn's), nothing to do. */
  enter(): void {
    if (this.open || this.db.inTransaction) return;
    this.begin.run();
    this.open = true;
    setImmediate(this.close);
  }

  /** At the turn's end, and before anything begins a transaction of its own. */
  close = (): void => {
    if (!this.open) return;
    this.open = false;
    try {
      if (this.db.inTransaction) this.end.run();
    } catch {
      // The database was closed under it (a store taken down): its transaction went with it.
    }
  };
}
