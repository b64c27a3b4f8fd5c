/**
 * Which shard of `npm test` this process is (tests/run.ts sets SAVEPOINT_TEST_SHARD to `i/n`): index `i`
 * of `count` shards running at once; a run alone is shard 0 of 1. Whatever each shard has of a shared
 * resource (ports, PostgreSQL clients) is divided by this.
 */
export function testShard(): { index: number; count: number } {
  const [index, count] = (process.env.SAVEPOINT_TEST_SHARD ?? "0/1").split("/").map(Number);
  if (!count || count <= 1 || index === undefined || !(index >= 0 && index < count)) return { index: 0, count: 1 };
  return { index, count };
}
