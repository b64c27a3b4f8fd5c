import type { RequestMeta } from "../bus/port.ts";

/**
 * Who made an admin change, as the gateway established it (its audit's `actorOf`): it rides with the
 * bus request of every admin route, so a service that keeps an author (sync policy versions) needs no
 * field of its own in the message.
 */
export const actorBusHeader = "x-savepoint-actor";

export const actorOfMeta = (meta: RequestMeta) => meta.headers[actorBusHeader] ?? "admin-api";
