import { parseJsonExact } from "@telecom-etl/platform/exact-number.js";
import { describe, expect, it } from "vitest";
import {
  bitsPerCharacter,
  holdsSecretValue,
  isCredentialName,
  isStrongSecret,
  KnownSecrets,
  MASK,
} from "../../src/core/known-secrets.js";

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

  it("masks by name every field whose value it learns, even written as one word", () => {
    for (const name of ["sippassword", "mysecret", "trunkAuthToken", "sip_password", "auth_secret"]) {
      expect(holdsSecretValue(name), name).toBe(true);
      expect(isCredentialName(name), name).toBe(true);
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

  it("clears a row's typed columns of its own keys only: not by name, never of learnt values", () => {
    const secrets = new KnownSecrets();
    secrets.add(KEY);
    secrets.learn(TOKEN);
    const columns = { token: "tok-123", label: `uses ${KEY}`, note: TOKEN };
    expect(secrets.maskColumns(columns)).toEqual({ token: "tok-123", label: `uses ${MASK}`, note: TOKEN });
    // Nothing of its own to mask: the same object, not walked.
    const learntOnly = new KnownSecrets();
    learntOnly.learn(TOKEN);
    expect(learntOnly.maskColumns(columns)).toBe(columns);
  });

  it("masks a weak learnt value only where it sits (by its field's name), a strong one in free text too", () => {
    const secrets = new KnownSecrets();
    secrets.harvest({
      sip_trunks: [{ id: 1, sip_password: "answered", auth_secret: "United States", client_secret: TOKEN }],
    });
    expect(secrets.size).toBe(1);
    expect(secrets.maskText(`answered to United States with ${TOKEN}`)).toBe(
      `answered to United States with ${MASK}`,
    );
    expect(
      secrets.mask({ sip_password: "answered", destination: "United States", note: `rotated ${TOKEN}` }),
    ).toEqual({ sip_password: MASK, destination: "United States", note: `rotated ${MASK}` });
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

describe("isStrongSecret", () => {
  it("takes random keys and tokens", () => {
    for (const value of [
      TOKEN,
      KEY,
      "7cc1f262b2be59f9123436fc0bd3a98b",
      "dGhpcyBpcyBub3QgYSByZWFsIGtleSAxMjM0",
      "ghp_R4nd0mT0k3nV4lu3X9",
    ]) {
      expect(isStrongSecret(value), value).toBe(true);
    }
    expect(bitsPerCharacter("7cc1f262b2be59f9123436fc0bd3a98b")).toBeGreaterThan(3.5);
  });

  it("leaves values that columns hold: words, places, numbers, ids, dates, addresses, repetitions", () => {
    for (const value of [
      "answered",
      "United States",
      "United Kingdom - Mobile Vodafone",
      "+14155550123",
      "4969350263885123456",
      "e1d8c710-866c-48c3-8898-4973ee5ba81f",
      "2026-08-01T10:30:42.123Z",
      "sip:102@pbx78349.example.net",
      "billing-team@example.com",
      "aaaaaaaaaaaaaaaaaaaa1111",
      "abc123",
    ]) {
      expect(isStrongSecret(value), value).toBe(false);
    }
  });
});
