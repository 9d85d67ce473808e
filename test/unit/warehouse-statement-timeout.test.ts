import { describe, expect, it } from "vitest";
import { isStatementTimeout, LoadStatementTimeoutError } from "../../src/warehouse/load/load-slice.js";

describe("isStatementTimeout", () => {
  it("is the server's statement_timeout and the loader's own deadline, not a cancel by hand", () => {
    expect(
      isStatementTimeout({ code: "57014", message: "canceling statement due to statement timeout" }),
    ).toBe(true);
    expect(isStatementTimeout(new LoadStatementTimeoutError(500))).toBe(true);
    expect(isStatementTimeout({ code: "57014", message: "canceling statement due to user request" })).toBe(
      false,
    );
    expect(isStatementTimeout(new Error("duplicate key value violates unique constraint"))).toBe(false);
  });

  it("names the setting and the limit in its message", () => {
    expect(new LoadStatementTimeoutError(500).message).toBe(
      "a load statement did not finish within 500 ms (load_statement_timeout_ms); its connection was closed",
    );
  });
});
