import { describe, expect, it } from "vitest";
import { scramSha256Verifier } from "../../src/warehouse/bi-reader-role.js";

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
