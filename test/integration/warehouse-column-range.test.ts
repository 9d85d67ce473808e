import { sql } from "kysely";
import { PG_TYPES, type PgType } from "../../src/warehouse/connection/landing-table.js";
import { COLUMN_RANGES, columnRangeCheck } from "../../src/warehouse/load/column-range.js";
import { fieldEncoder } from "../../src/warehouse/load/copy-text-encoding.js";
import { describe, expect, it } from "../helpers/fixtures.js";

/**
 * The ranges of src/warehouse/load/column-range.ts against PostgreSQL itself: for values on both sides
 * of every limit, "fits" must be exactly "the server reads it as the type" (sent as the COPY would
 * write it). The oracle is the server, not the code under test.
 */
const PROBES: Readonly<Partial<Record<PgType, readonly unknown[]>>> = {
  text: ["plain", "", "tab\tand newline\n", "nul\u0000inside", "\u0000"],
  integer: [
    0,
    2_147_483_647,
    2_147_483_648,
    -2_147_483_648,
    -2_147_483_649,
    3_000_000_000,
    1.5,
    "42",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "0002147483647",
    "1e3",
    "x",
  ],
  bigint: [
    0,
    2 ** 53,
    2 ** 63,
    -(2 ** 63),
    1e21,
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "12345678901234567890",
  ],
  numeric: [
    0,
    1e308,
    5e-324,
    "0.027",
    "-0.10",
    "1e-7",
    "1e131071",
    "1e131072",
    "12e131070",
    "12e131071",
    "1e-16383",
    "1e-16384",
    "1.5e-16382",
    "1.5e-16383",
    "0.1e-16382",
    "0.1e-16383",
    "0.00e-16383",
    "1e999999999",
    `9${"9".repeat(131_071)}`,
    `9${"9".repeat(131_072)}`,
    `0.${"1".repeat(16_383)}`,
    `0.${"1".repeat(16_384)}`,
    "e5",
    ".",
  ],
  timestamptz: [
    "2026-08-01T10:00:00Z",
    "2026-08-01T10:00:00.123+02:00",
    "2026-08-01T10:00:00+15:59",
    "2026-08-01T10:00:00-15:59",
    "2026-08-01T10:00:00+16:00",
    "2026-08-01T10:00:00-23:59",
    "0001-01-01T00:00:00Z",
    "0000-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z",
  ],
  date: ["2026-08-01", "0001-01-01", "0000-01-01", "9999-12-31"],
};

describe("column ranges", () => {
  it("every type is decided: checked, or every value the loader produces fits", () => {
    expect(Object.keys(COLUMN_RANGES).sort()).toEqual([...PG_TYPES].sort());
  });

  it("say 'fits' exactly when PostgreSQL reads the value as the column's type", async ({ database }) => {
    const disagreements: string[] = [];
    for (const [type, values] of Object.entries(PROBES) as [PgType, readonly unknown[]][]) {
      const range = COLUMN_RANGES[type]!;
      const encode = fieldEncoder(type);
      for (const value of values) {
        // What COPY would send, unescaped again (a NUL is sent as is: PostgreSQL refuses it in text).
        const text = encode(value).replace(/\\t/g, "\t").replace(/\\n/g, "\n");
        const accepted = await sql`SELECT ${text}::${sql.raw(type)} AS v`.execute(database.warehouse.db).then(
          () => true,
          () => false,
        );
        if (range.fits(value) !== accepted) {
          disagreements.push(
            `${type} ${String(value).slice(0, 40)}: fits ${range.fits(value)}, server ${accepted}`,
          );
        }
      }
    }
    expect(disagreements).toEqual([]);
  });

  it("a table's check names the first column whose value does not fit, with the value and the range", () => {
    const check = columnRangeCheck([
      { name: "uuid", pgType: "text", nullable: false },
      { name: "duration", pgType: "integer", nullable: false },
      { name: "charge", pgType: "numeric", nullable: true },
    ]);
    expect(check({ uuid: "a", duration: 30, charge: null })).toBeNull();
    expect(check({ uuid: "a", duration: 3_000_000_000, charge: "0.1" })).toEqual({
      column: "duration",
      value: "3000000000",
      range: "integer: -2147483648 to 2147483647",
    });
  });
});
