import { randomBase62 } from "../../shared/util/ids.ts";

const sane = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's X-Request-Id when it is sane, else a new one. */
export const requestIdOf = (headers: Headers) => {
  const given = headers.get("x-request-id");
  return given && sane.test(given) ? given : `req_${randomBase62(16)}`;
};
