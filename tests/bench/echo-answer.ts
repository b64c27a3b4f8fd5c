/** The accepted answer the G1/G2 echo gives a slot sync: the route's own shape, no store behind it. */
export const echo = async (data: unknown) => ({
  status: "accepted",
  version: (data as { body: { baseVersion: number } }).body.baseVersion + 1,
  updatedAt: new Date().toISOString(),
  historyRetained: false,
});
