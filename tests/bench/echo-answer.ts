import { accepted, onWire } from "../../shared/serving/reply.ts";

/** The accepted answer the G1/G2 echo gives a slot sync: the route's own shape, no store behind it, as a reply on the wire. */
export const echo = async (data: unknown) =>
  onWire(
    accepted({
      status: "accepted",
      version: (data as { body: { baseVersion: number } }).body.baseVersion + 1,
      updatedAt: new Date().toISOString(),
      historyRetained: false,
    }),
  );
