/**
 * A MONGODB_URL naming a replica set the server is not in: the driver drops every seed that answers as
 * a standalone server (FerretDB always does) or as another set's member, and server selection times out
 * with no server left to report. Retrying cannot help, so the start stops at once with what to change.
 */
export class NotReplicaSetMemberError extends Error {
  constructor(hosts: string, setName: string) {
    super(
      `MongoDB at ${hosts} answered but is not a member of replica set "${setName}" named in MONGODB_URL: a standalone server or FerretDB ` +
        `has no replica set. Drop replicaSet=${setName} from MONGODB_URL, or start the server as that replica set (rs.initiate).`,
    );
    this.name = "NotReplicaSetMemberError";
  }
}

interface SelectionFailure {
  name?: string;
  reason?: { servers?: Map<string, unknown> };
}

/** The error to report for a failed connect: NotReplicaSetMemberError when that is the cause, else none. */
export function replicaSetMismatch(url: string, err: unknown): NotReplicaSetMemberError | undefined {
  const setName = /[?&]replicaSet=([^&#]+)/i.exec(url)?.[1];
  const cause = (err instanceof Error && err.cause ? err.cause : err) as SelectionFailure;
  if (!setName || cause?.name !== "MongoServerSelectionError") return undefined;
  // A seed out of reach stays in the topology as Unknown (with its network error): that is an outage.
  if ((cause.reason?.servers?.size ?? 1) > 0) return undefined;
  const hosts = /^mongodb(?:\+srv)?:\/\/(?:[^@/]*@)?([^/?]+)/.exec(url)?.[1] ?? "MONGODB_URL";
  return new NotReplicaSetMemberError(hosts, decodeURIComponent(setName));
}
