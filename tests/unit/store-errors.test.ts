import { expect, test } from "bun:test";
import { MongoServerError } from "mongodb";
import { classifyStoreError } from "../../shared/store/mongo.ts";
import { DuplicateKeyError, StoreUnavailableError } from "../../shared/store/port.ts";

const serverError = (message: string, code = 1) => new MongoServerError({ message, code, errmsg: message });

// Seen in a fault run: FerretDB out of PostgreSQL connections answered a sync with this server error,
// and the client got 500 instead of 503 with Retry-After.
test("a wire server's unreachable backend is the store being unavailable, not a bug", () => {
  const ferret =
    "[msg_findandmodify.go:196] failed to connect to `user=postgres database=sp_x`: server error: FATAL: sorry, too many clients already (SQLSTATE 53300)";
  expect(classifyStoreError(serverError(ferret))).toBeInstanceOf(StoreUnavailableError);
  expect(
    classifyStoreError(serverError("terminating connection due to administrator command (SQLSTATE 57P01)")),
  ).toBeInstanceOf(StoreUnavailableError);
});

test("duplicates stay typed, other server errors stay bugs, driver errors are outages", () => {
  expect(classifyStoreError(serverError("E11000 duplicate key", 11000))).toBeInstanceOf(DuplicateKeyError);
  const bug = serverError("unknown operator: $foo", 2);
  expect(classifyStoreError(bug)).toBe(bug);
  expect(classifyStoreError(new Error("connect ECONNREFUSED"))).toBeInstanceOf(StoreUnavailableError);
});
