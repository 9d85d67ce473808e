import { describe, expect, it } from "vitest";
import { EtlError } from "../../src/core/errors.js";
import { silentLogger } from "../../src/core/log.js";
import { acrossOutage, isWarehouseUnreachable } from "../../src/warehouse/connection/warehouse-outage.js";

/** A clock that only moves when the code under test sleeps. */
function virtualTime() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    clock: { now: () => now },
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    sleeps,
  };
}

/** An error as pg reports a session the server ended (a restart's fast shutdown). */
function terminated(): Error {
  return Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
}

describe("riding out a warehouse outage", () => {
  it("tells an unreachable warehouse from a wrong statement", () => {
    expect(isWarehouseUnreachable(terminated())).toBe(true);
    expect(
      isWarehouseUnreachable(
        Object.assign(new Error("the database system is starting up"), { code: "57P03" }),
      ),
    ).toBe(true);
    expect(
      isWarehouseUnreachable(
        Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
      ),
    ).toBe(true);
    expect(isWarehouseUnreachable(new Error("timeout exceeded when trying to connect"))).toBe(true);
    expect(isWarehouseUnreachable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(
      isWarehouseUnreachable(Object.assign(new Error('relation "x" does not exist'), { code: "42P01" })),
    ).toBe(false);
  });

  it("tries a step again, backing off, until the warehouse answers", async () => {
    const time = virtualTime();
    let calls = 0;
    const result = await acrossOutage(
      "reading",
      async () => {
        calls++;
        if (calls < 6) throw terminated();
        return "answered";
      },
      { log: silentLogger, ...time },
    );
    expect(result).toBe("answered");
    expect(time.sleeps).toEqual([250, 500, 1000, 2000, 4000]);
  });

  it("gives up after the limit with one line naming the step, and never retries a wrong statement", async () => {
    const time = virtualTime();
    const error = await acrossOutage(
      "reading the units",
      async () => {
        throw terminated();
      },
      { log: silentLogger, limitMs: 60_000, ...time },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EtlError);
    expect((error as Error).message).toMatch(
      /^the warehouse has not answered for 6\d s \(reading the units\): terminating connection/,
    );
    expect(Math.max(...time.sleeps)).toBe(5_000);

    let calls = 0;
    const wrong = Object.assign(new Error("syntax error"), { code: "42601" });
    await expect(
      acrossOutage(
        "reading",
        async () => {
          calls++;
          throw wrong;
        },
        { log: silentLogger, ...virtualTime() },
      ),
    ).rejects.toBe(wrong);
    expect(calls).toBe(1);
  });
});
