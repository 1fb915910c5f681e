import { describe, expect, it } from "vitest";
import {
  AlreadyExists,
  CommitConflict,
  Constraint,
  Corruption,
  corruption,
  IdempotencyKeyReused,
  InvalidRequest,
  NotFound,
  quoteName,
  RETRY_SUBSTRINGS,
  RetryBudgetExhausted,
  RetryCountExceeded,
  Unsupported,
} from "../../catalog/errors.ts";
import { CodedError } from "../../storage/errors.ts";

const hasRetryWord = (text: string): boolean => RETRY_SUBSTRINGS.some((w) => text.toLowerCase().includes(w));
const hostile = [
  "unique_ids",
  "conflicts",
  "Concurrent_Orders",
  "PRIMARY KEY",
  "primary\tkey",
  "x_UnIqUe_y",
  'a"b',
];

describe("error texts and the retry wire contract", () => {
  it("only CommitConflict carries a retry substring", () => {
    expect(hasRetryWord(new CommitConflict("dropping table 3").message)).toBe(true);
    for (const name of hostile) {
      const q = quoteName(name);
      const errors: CodedError[] = [
        new RetryBudgetExhausted(`gave up; started from snapshot 3, lost to ${q}`),
        new RetryCountExceeded(1, `snapshot 4 was taken by ${q}`),
        new NotFound(`table ${q} does not exist`),
        new AlreadyExists(`${q} is already a table`),
        new Constraint(`schema ${q} still holds table ${q}`),
        new Unsupported(`the type ${q} is not a DuckLake type`),
        new IdempotencyKeyReused(`key ${q} was used for a different request`),
        new InvalidRequest(`column ${q} appears twice`),
        corruption(`record ${q}: bad magic`),
      ];
      for (const e of errors) {
        expect(hasRetryWord(e.message), `${e.code}: ${e.message}`).toBe(false);
        expect(e).toBeInstanceOf(CodedError);
      }
    }
  });

  it("every class has its stable code and says what to do", () => {
    expect(new CommitConflict("x").code).toBe("CommitConflict");
    expect(new RetryBudgetExhausted("x").code).toBe("RetryBudgetExhausted");
    expect(new RetryCountExceeded(1, "x").code).toBe("RetryCountExceeded");
    // Stock DuckLake's text, which DuckLake's suite and users match (docs/decisions/0720-staged-retry-count.md).
    expect(new RetryCountExceeded(1, "x").message).toContain(
      "Exceeded the maximum retry count of 1 set by the ducklake_max_retry_count setting.",
    );
    expect(new NotFound("x").code).toBe("NotFound");
    expect(new AlreadyExists("x").code).toBe("AlreadyExists");
    expect(new Constraint("x").code).toBe("Constraint");
    expect(new Unsupported("x").code).toBe("Unsupported");
    expect(new IdempotencyKeyReused("x").code).toBe("IdempotencyKeyReused");
    expect(new InvalidRequest("x").code).toBe("InvalidRequest");
    expect(corruption("x")).toBeInstanceOf(Corruption);
    expect(corruption("x").code).toBe("Corruption");
    expect(new RetryBudgetExhausted("x").message).toMatch(/try later/);
    expect(new CommitConflict("x").message).toMatch(/re-drive/);
  });

  it("quoteName keeps ordinary names readable", () => {
    expect(quoteName("orders")).toBe('"orders"');
    expect(quoteName('we"ird')).toBe('"we""ird"');
    expect(quoteName("unique_ids")).toBe('"u*ique_ids"');
  });
});
