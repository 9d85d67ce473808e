import { describe, expect, it } from "vitest";
import { holdsSecretValue, isCredentialName, KnownSecrets, MASK } from "../../src/known-secrets.js";
import { parseJsonExact } from "../../src/platform/exact-number.js";

const TOKEN = "0123456789abcdef0123456789abcdef";
const KEY = "sk_live_4f9a8b7c6d5e";

describe("isCredentialName", () => {
  it("knows a credential's name in any case or separator", () => {
    for (const name of [
      "api_key",
      "apiKey",
      "api-key",
      "API_KEY",
      "ApiKey",
      "apikey",
      "X-Api-Key",
      "access_token",
      "accessToken",
      "ACCESS-TOKEN",
      "accesstoken",
      "token",
      "key",
      "secret",
      "clientSecret",
      "password",
      "Password",
      "db.passwd",
      "auth_token",
    ]) {
      expect(isCredentialName(name), name).toBe(true);
    }
  });

  it("leaves names that only contain the letters alone", () => {
    for (const name of [
      "monkey",
      "keyword",
      "tokens_used",
      "turkey_count",
      "uuid",
      "sip_uri",
      "description",
    ]) {
      expect(isCredentialName(name), name).toBe(false);
    }
  });

  it("remembers values only of names that are clearly secrets, not of any `key`", () => {
    expect(holdsSecretValue("apiKey")).toBe(true);
    expect(holdsSecretValue("access-token")).toBe(true);
    expect(holdsSecretValue("subAccountApiKey")).toBe(true);
    expect(holdsSecretValue("password")).toBe(true);
    expect(holdsSecretValue("sort_key")).toBe(false);
    expect(holdsSecretValue("token")).toBe(false);
  });
});

describe("KnownSecrets", () => {
  it("masks a known secret wherever it appears, and credential-named fields by name", () => {
    const secrets = new KnownSecrets();
    secrets.add(TOKEN);
    const raw = {
      id: 7,
      accessToken: "not-yet-known-value",
      sip_uri: `sip:${TOKEN}@edge`,
      nested: [{ note: `token ${TOKEN} twice ${TOKEN}` }, { password: null }],
      [TOKEN]: 1,
    };
    expect(secrets.mask(raw)).toEqual({
      id: 7,
      accessToken: MASK,
      sip_uri: `sip:${MASK}@edge`,
      nested: [{ note: `token ${MASK} twice ${MASK}` }, { password: null }],
      [MASK]: 1,
    });
  });

  it("by value only for a row's typed columns: a column named token is a validation's id", () => {
    const secrets = new KnownSecrets();
    secrets.add(KEY);
    expect(secrets.maskValues({ token: "tok-123", label: `uses ${KEY}` })).toEqual({
      token: "tok-123",
      label: `uses ${MASK}`,
    });
  });

  it("returns what holds nothing to mask unchanged, and keeps exact numbers and dates as they are", () => {
    const secrets = new KnownSecrets();
    secrets.add(KEY);
    const row = parseJsonExact('{"amount": -1.50, "items": [{"x": 1}]}', ["amount"]) as Record<
      string,
      unknown
    >;
    const when = new Date(0);
    expect(secrets.mask(row)).toBe(row);
    const masked = secrets.mask({ ...row, at: when, apiKey: KEY });
    expect(JSON.stringify(masked)).toBe(
      `{"amount":-1.50,"items":[{"x":1}],"at":"1970-01-01T00:00:00.000Z","apiKey":"***"}`,
    );
    expect(masked.at).toBe(when);
  });

  it("learns secrets from an answer's secret-looking fields at any depth, under any spelling", () => {
    const secrets = new KnownSecrets();
    secrets.harvest({
      sub_organizations: [{ id: 1, apiKey: KEY }],
      sip_trunks: [{ id: 2, ACCESS_TOKEN: TOKEN, sort_key: "2026-08-01" }],
    });
    expect(secrets.size).toBe(2);
    expect(secrets.maskText(`${KEY} ${TOKEN} 2026-08-01`)).toBe(`${MASK} ${MASK} 2026-08-01`);
  });

  it("ignores values too short to mask safely and never prints what it holds", () => {
    const secrets = new KnownSecrets();
    secrets.add("abc");
    secrets.add(KEY);
    expect(secrets.size).toBe(1);
    expect(secrets.maskText("abc")).toBe("abc");
    expect(JSON.stringify({ secrets })).not.toContain(KEY);
    expect(String(secrets.maskText(KEY))).toBe(MASK);
  });
});
