import { describe, expect, test } from "bun:test";
import { createAnswerBytes } from "../../services/gateway/answer-bytes.ts";
import { AppError } from "../../shared/contract/errors.ts";

const MiB = 1_048_576;
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err instanceof AppError
      ? { code: err.code, scope: (err.details as { scope?: string } | undefined)?.scope }
      : err;
  }
  return undefined;
};

describe("bytes of answers in flight (answer-bytes.ts)", () => {
  test("an account's large answers past its bound are refused at admission; past the copy's, 503; small ones pass; all come back", () => {
    const bytes = createAnswerBytes({ total: 2 * MiB, perAccount: MiB });
    // One answer of 300 kB teaches the estimate for account a's route.
    const first = bytes.enter("a", "getAccount");
    first.settle(300_000);
    first.release();

    const a = [1, 2, 3].map(() => bytes.enter("a", "getAccount"));
    expect(refusal(() => bytes.enter("a", "getAccount"))).toEqual({ code: "rate_limited", scope: "account" });
    // Accounts b and d have their own room, but the copy's total is what is left: 900 + 700 + 500 kB > 2 MiB.
    const b1 = bytes.enter("b", "getAccount");
    b1.settle(700_000);
    const d1 = bytes.enter("d", "getAccount");
    expect(refusal(() => d1.settle(500_000))).toEqual({ code: "service_unavailable", scope: undefined });
    // Now known to be large, d's next read is refused before any work.
    expect(refusal(() => bytes.enter("d", "getAccount"))).toEqual({ code: "service_unavailable", scope: undefined });
    const b2 = bytes.enter("b", "getSlot"); // unknown route: estimated small, so admitted
    // A small answer of a third account is never refused for the total.
    const c = bytes.enter("c", "getSlot");
    c.settle(2_000);
    c.release();

    for (const h of [...a, b1, b2, d1]) {
      h.release();
      h.release(); // once only
    }
    // All back: three of a's and one of d's large reads pass again at once.
    const again = ["a", "a", "a", "d"].map((id) => bytes.enter(id, "getAccount"));
    for (const h of again) h.release();
    expect(again).toHaveLength(4);
  });
});
