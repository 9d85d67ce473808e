import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import { describe, expect } from "vitest";
import { numbersStream } from "../../src/streams/numbers.js";
import { sipTrunksStream } from "../../src/streams/sip-trunks.js";
import type { StreamDefinition } from "../../src/streams/stream-definition.js";
import {
  DID_OPTIONAL_FIELDS,
  DID_FIELDS as FACTS_DID_FIELDS,
  TRUNK_SUMMARY_FIELDS,
} from "../helpers/facts-fields.js";
import { platform, sandboxTest } from "./sandbox-client.js";

/**
 * The routes the loader reads for owned numbers and SIP trunks answer the platform's published
 * shapes (platform-facts.md, "Lists and lookups the interface document does not show"), on both API
 * revisions: the envelope's keys, and each item's fields. The field lists below are copied from the
 * facts file, not taken from the schemas in packages/platform/src, so a schema that drifts from the facts
 * fails here. The paths are the loader's own (each stream's requests), so a path the loader asks
 * and the sandbox does not serve fails too.
 */

const WORLD = { seed: 41, days: 10, callsPerDay: 60, accounts: 2, now: "2026-08-11T00:00:00Z" } as const;
const test = sandboxTest({
  "2024": { ...WORLD },
  "2026": { ...WORLD, apiRevision: "2026" },
});

/** Owned numbers (facts): `{"items", "doc_types", "pagination"}`. */
const NUMBERS_ENVELOPE = ["items", "doc_types", "pagination"];
/** A DID item's fields (facts), and those it may leave out. */
const DID_FIELDS: readonly string[] = FACTS_DID_FIELDS;
const DID_OPTIONAL: readonly string[] = DID_OPTIONAL_FIELDS;

/** SIP trunks (facts): `{"sip_trunks": [...] | null, "pagination"}`. */
const TRUNKS_ENVELOPE = ["sip_trunks", "pagination"];
/** A trunk summary's fields (facts). */
const TRUNK_FIELDS: readonly string[] = TRUNK_SUMMARY_FIELDS;
const PAGINATION = ["current_page", "per_page", "total", "total_pages"];
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** The one path a full-refresh stream asks on `revision`. */
function pathOf(stream: StreamDefinition, revision: ApiRevision): string {
  const sources = {
    subAccounts: [],
    brandIds: undefined,
    validationTokens: [],
    numberCatalog: { countries: [], textEnabledOnly: false },
  };
  const requests = stream.requests(
    { kind: "full" },
    { revision, account: "master", today: "2026-08-11", discovered: [], sources },
  );
  expect(requests).toHaveLength(1);
  expect(requests[0]!.query).toEqual({});
  return requests[0]!.path;
}

/** Every page of `path` (per_page 2), each page's body as served. */
async function pages(
  sandbox: Parameters<typeof platform>[0],
  path: string,
): Promise<Record<string, unknown>[]> {
  const bodies: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    const answer = await platform(sandbox, `${path}?page=${page}&per_page=2`);
    expect(answer.status, `${path} page ${page}`).toBe(200);
    const body = answer.body as Record<string, unknown>;
    bodies.push(body);
    const pagination = body.pagination as { total_pages: number };
    if (page >= pagination.total_pages) return bodies;
  }
}

describe("published shapes of the lists the loader reads", () => {
  test.for(["2024", "2026"] as const)(
    "API revision %s: owned numbers answer {items, doc_types, pagination} with DID items",
    async (revision, { sandboxes }) => {
      const sandbox = sandboxes[revision];
      const path = pathOf(numbersStream, revision);
      expect(path).toBe(revision === "2024" ? "/v1/mydids" : "/v1/numbers");
      const bodies = await pages(sandbox, path);
      expect(bodies.length).toBeGreaterThan(1);
      const items: Record<string, unknown>[] = [];
      for (const body of bodies) {
        expect(Object.keys(body)).toEqual(NUMBERS_ENVELOPE);
        expect(Object.keys(body.pagination as object)).toEqual(PAGINATION);
        for (const type of body.doc_types as Record<string, unknown>[]) {
          expect(Object.keys(type).sort()).toEqual(["id", "name", "title"]);
        }
        items.push(...(body.items as Record<string, unknown>[]));
      }
      expect(items).toHaveLength(sandbox.world.accounts[0]!.dids.length);
      for (const item of items) {
        const keys = Object.keys(item);
        expect(keys.filter((k) => !DID_FIELDS.includes(k) && !DID_OPTIONAL.includes(k))).toEqual([]);
        expect(DID_FIELDS.filter((k) => !keys.includes(k))).toEqual([]);
        for (const money of ["activation_fee", "monthly_fee", "per_min"])
          expect(item[money]).toMatch(DECIMAL);
        expect(Array.isArray(item.destination)).toBe(true);
      }
    },
  );

  test.for(["2024", "2026"] as const)(
    "API revision %s: trunks answer {sip_trunks, pagination} with summaries, paged",
    async (revision, { sandboxes }) => {
      const sandbox = sandboxes[revision];
      const account = sandbox.world.accounts[0]!;
      // One trunk created with IP authentication and several caller ids: pending, callerid "".
      const created = await platform(sandbox, "/v1/trunks", {
        method: "POST",
        body: {
          label: "Published",
          password: "pw-123456",
          callerid: "",
          multiple_numbers: true,
          host_request: { host: "198.51.100.7" },
          ip_restrict: false,
          didinfo_enabled: true,
          call_restrict: false,
          cost_limit: false,
          channels_restrict: false,
          rewrite_enabled: false,
          transcription_enabled: true,
          transcription_threshold: 10,
        },
      });
      expect(created.status).toBe(200);
      const path = pathOf(sipTrunksStream, revision);
      expect(path).toBe("/v1/trunks");
      const bodies = await pages(sandbox, path);
      const trunks: Record<string, unknown>[] = [];
      for (const body of bodies) {
        expect(Object.keys(body)).toEqual(TRUNKS_ENVELOPE);
        expect(Object.keys(body.pagination as object)).toEqual(PAGINATION);
        trunks.push(...(body.sip_trunks as Record<string, unknown>[]));
      }
      expect(trunks.map((t) => t.name)).toEqual([
        ...account.trunks.map((t) => t.name),
        (created.body as { name: string }).name,
      ]);
      for (const trunk of trunks) {
        expect(Object.keys(trunk).sort()).toEqual([...TRUNK_FIELDS].sort());
        expect(trunk.charge).toMatch(DECIMAL);
        expect(Number.isInteger(trunk.talk_time)).toBe(true);
        expect(["Digest", "IP auth"]).toContain(trunk.auth_method);
        expect(["active", "pending"]).toContain(trunk.status);
        if (trunk.auth_method === "Digest") expect(trunk.host_request).toBeNull();
        else expect(Object.keys(trunk.host_request as object).sort()).toEqual(["host", "status"]);
      }
      expect(trunks.at(-1)).toMatchObject({
        callerid: "",
        auth_method: "IP auth",
        host_request: { host: "198.51.100.7", status: "pending" },
        status: "pending",
        multiple_numbers: true,
        talk_time: 0,
        charge: "0.00",
      });
    },
  );
});
