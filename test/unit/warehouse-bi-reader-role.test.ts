import { describe, expect, it } from "vitest";
import { biReaderRoleFor, scramSha256Verifier } from "../../src/warehouse/admin/bi-reader-role.js";

describe("scramSha256Verifier", () => {
  // The salt of RFC 7677's example. That Postgres accepts the verifier is shown by a real login as
  // bi_reader in test/integration/bi-reader-access.test.ts; here only its shape and secrecy.
  const salt = Buffer.from("W22ZaJ0SNY7soEsUEjb6gQ==", "base64");

  it("has Postgres's SCRAM-SHA-256 shape and never contains the password", () => {
    const verifier = scramSha256Verifier("pencil", salt);
    expect(verifier).toMatch(
      /^SCRAM-SHA-256\$4096:W22ZaJ0SNY7soEsUEjb6gQ==\$[A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{43}=$/,
    );
    expect(verifier).not.toContain("pencil");
  });

  it("is the same for the same salt, and a fresh salt each call by default", () => {
    expect(scramSha256Verifier("pencil", salt)).toBe(scramSha256Verifier("pencil", salt));
    expect(scramSha256Verifier("pencil")).not.toBe(scramSha256Verifier("pencil"));
  });
});

describe("biReaderRoleFor", () => {
  it("is <database>_bi_reader for a plain name, the configured role when there is one", () => {
    expect(biReaderRoleFor("warehouse")).toBe("warehouse_bi_reader");
    expect(biReaderRoleFor("t_0a1b2c3d4e5f")).toBe("t_0a1b2c3d4e5f_bi_reader");
    expect(biReaderRoleFor("warehouse", "looker")).toBe("looker");
  });

  it("makes any database name a plain identifier of at most 63 characters, two names never one role", () => {
    const names = ["Sales-DB", "sales_db", "sales-db", "2026wh", `w${"x".repeat(80)}`, `w${"x".repeat(81)}`];
    const roles = names.map((name) => biReaderRoleFor(name));
    for (const role of roles) {
      expect(role).toMatch(/^[a-z_][a-z0-9_]*_bi_reader$/);
      expect(role.length).toBeLessThanOrEqual(63);
    }
    expect(new Set(roles).size).toBe(names.length);
    expect(biReaderRoleFor("Sales-DB")).toBe(biReaderRoleFor("Sales-DB"));
  });
});
