/**
 * Named points where a fault test may kill this process outright (`SAVEPOINT_FAILPOINT=<name>`), to
 * prove what survives a crash at the worst moment, such as after a write and before its answer.
 * Unset (always, outside tests), a failpoint is one string comparison.
 */
const armed = process.env.SAVEPOINT_FAILPOINT;

export function failpoint(name: string): void {
  if (armed === name) process.kill(process.pid, "SIGKILL");
}
