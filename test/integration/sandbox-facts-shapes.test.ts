import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import type { RunningSandbox } from "@telecom-etl/sandbox";
import { describe, expect } from "vitest";
import { messagesStream } from "../../src/streams/messages.js";
import { recordingsStream } from "../../src/streams/recordings.js";
import type { RequestContext, StreamDefinition, StreamRequest } from "../../src/streams/stream-definition.js";
import { subAccountsStream } from "../../src/streams/sub-accounts.js";
import { transactionsStream } from "../../src/streams/transactions.js";
import { transcriptionsStream } from "../../src/streams/transcriptions.js";
import {
  CALL_TRANSCRIPTION_2026_FIELDS,
  CALL_TRANSCRIPTION_FIELDS,
  MESSAGE_FIELDS as FACTS_MESSAGE_FIELDS,
  MESSAGE_OPTIONAL_FIELDS,
} from "../helpers/facts-fields.js";
import { ndjson, platform, sandboxTest } from "./sandbox-client.js";

/**
 * The date-windowed lists and the per-call lookup the loader reads answer the platform's published
 * shapes (platform-facts.md, "Lists and lookups the interface document does not show" and
 * "Messages"), on both API revisions. The envelope keys and item fields below are copied from the
 * facts file, not from the schemas in packages/platform/src, so a schema or a sandbox that drifts from the
 * facts fails here; the paths and queries are the loader's own requests, so a request the loader
 * sends and the sandbox does not answer in that shape fails too.
 */

const WORLD = { seed: 43, days: 6, callsPerDay: 120, accounts: 2, now: "2026-08-07T06:00:00Z" } as const;
const test = sandboxTest({
  "2024": { ...WORLD },
  "2026": { ...WORLD, apiRevision: "2026" },
});
const DAY = { kind: "window", window: { start: "2026-08-03", end: "2026-08-04" } } as const;
const PAGINATION = ["current_page", "per_page", "total", "total_pages"];

/** Recordings (facts): `{"recordings", "invalid", "pagination"}` of `{id, created_at, duration, from, to, call_uuid, url}`. */
const RECORDING_FIELDS = ["id", "created_at", "duration", "from", "to", "call_uuid", "url"];
/** The ledger (facts): `{"is_empty", "transactions", "pagination"}` of these lines. */
const TRANSACTION_FIELDS = [
  "id",
  "date",
  "amount",
  "balance_after",
  "details",
  "status",
  "type",
  "show_invoice",
];
/** A message (facts), and the field it may leave out. */
const MESSAGE_FIELDS: readonly string[] = FACTS_MESSAGE_FIELDS;
const MESSAGE_OPTIONAL: readonly string[] = MESSAGE_OPTIONAL_FIELDS;
const TURN_FIELDS = ["type", "s", "e", "text", "sentiment"];
/** Sub-accounts (facts): `{"sub_organizations", "pagination"}` of these. */
const SUB_ACCOUNT_FIELDS = [
  "id",
  "created_at",
  "name",
  "api_key",
  "master_organization",
  "status",
  "default_destinations",
];

/** A request context of the master on `revision`, reading sub-account `subId`'s ledger too. */
function masterOn(revision: ApiRevision, subId: number): RequestContext {
  return {
    account: "master",
    revision,
    today: "2026-08-07",
    discovered: [],
    sources: {
      subAccounts: [subId],
      brandIds: undefined,
      validationTokens: [],
      numberCatalog: { countries: [], textEnabledOnly: false },
    },
  };
}

/** The URL of one of the loader's requests, with a page. */
function urlOf(request: StreamRequest, page = 1): string {
  const query = new URLSearchParams({ ...request.query, page: String(page), per_page: "100" });
  return `${request.path}?${query}`;
}

/** Every page of one of the loader's requests: the bodies as parsed and as served (text). */
async function pagesOf(sandbox: RunningSandbox, request: StreamRequest) {
  const pages: { body: Record<string, unknown>; text: string }[] = [];
  for (let page = 1; ; page++) {
    const answer = await platform(sandbox, urlOf(request, page));
    expect(answer.status, urlOf(request, page)).toBe(200);
    const body = answer.body as Record<string, unknown>;
    pages.push({ body, text: answer.text });
    const pagination = body.pagination as { total_pages: number } | undefined;
    if (pagination === undefined || page >= pagination.total_pages) return pages;
  }
}

/** The loader's requests of `stream` for one day on `revision`. */
function requestsOf(stream: StreamDefinition, revision: ApiRevision, sandbox: RunningSandbox) {
  return stream.requests(DAY, masterOn(revision, sandbox.world.accounts[1]!.id));
}

describe("published shapes of the windowed lists and the call transcription", () => {
  test.for(["2024", "2026"] as const)(
    "API revision %s: recordings answer {recordings, invalid, pagination} of published items",
    async (revision, { sandboxes }) => {
      const sandbox = sandboxes[revision];
      const [request, ...more] = requestsOf(recordingsStream, revision, sandbox);
      expect(more).toEqual([]);
      expect(request!.path).toBe("/v1/recordings");
      const items = [];
      for (const { body } of await pagesOf(sandbox, request!)) {
        expect(Object.keys(body).sort()).toEqual(["invalid", "pagination", "recordings"]);
        expect(Object.keys(body.pagination as object)).toEqual(PAGINATION);
        items.push(...(body.recordings as Record<string, unknown>[]));
      }
      expect(items.length).toBeGreaterThan(0);
      for (const item of items) {
        expect(Object.keys(item).sort()).toEqual([...RECORDING_FIELDS].sort());
        expect(Number.isInteger(item.id)).toBe(true);
      }
    },
  );

  test.for(["2024", "2026"] as const)(
    "API revision %s: the master's and a sub-account's ledger answer {is_empty, transactions, pagination}, amounts as JSON numbers",
    async (revision, { sandboxes }) => {
      const sandbox = sandboxes[revision];
      const subId = sandbox.world.accounts[1]!.id;
      const requests = [
        ...requestsOf(transactionsStream, revision, sandbox),
        // The fan-out's sub-account reads its ledger under the master's path for it.
        ...transactionsStream.requests(DAY, {
          ...masterOn(revision, subId),
          account: "master-sub",
          subAccountId: subId,
        }),
      ];
      expect(requests.map((r) => r.path)).toEqual([
        "/v1/billing/transactions",
        `/v1/sub-organizations/${subId}/billing/transactions`,
      ]);
      for (const request of requests) {
        let lines = 0;
        for (const { body, text } of await pagesOf(sandbox, request)) {
          expect(Object.keys(body).sort()).toEqual(["is_empty", "pagination", "transactions"]);
          for (const line of body.transactions as Record<string, unknown>[]) {
            expect(Object.keys(line).sort()).toEqual([...TRANSACTION_FIELDS].sort());
            expect(typeof line.amount).toBe("number");
            expect(typeof line.balance_after).toBe("number");
            expect(Number.isInteger(line.type)).toBe(true);
            lines += 1;
          }
          // Served as number literals, never as strings.
          expect(text).not.toMatch(/"amount":"/);
        }
        expect(lines, request.path).toBeGreaterThan(0);
      }
    },
  );

  test.for(["2024", "2026"] as const)(
    "API revision %s: messages of both directions answer {items, pagination} of published items",
    async (revision, { sandboxes }) => {
      const sandbox = sandboxes[revision];
      const requests = requestsOf(messagesStream, revision, sandbox);
      expect(requests.map((r) => r.query.type).sort()).toEqual(["inbound", "outbound"]);
      for (const request of requests) {
        expect(request.path).toBe("/v3/messages");
        let items = 0;
        for (const { body } of await pagesOf(sandbox, request)) {
          expect(Object.keys(body).sort()).toEqual(["items", "pagination"]);
          for (const item of body.items as Record<string, unknown>[]) {
            items += 1;
            const keys = Object.keys(item);
            expect(MESSAGE_FIELDS.filter((k) => !keys.includes(k))).toEqual([]);
            expect(keys.filter((k) => !MESSAGE_FIELDS.includes(k) && !MESSAGE_OPTIONAL.includes(k))).toEqual(
              [],
            );
          }
        }
        expect(items, `${request.query.type} messages`).toBeGreaterThan(0);
      }
    },
  );

  test.for(["2024", "2026"] as const)(
    "API revision %s: sub-accounts answer {sub_organizations, pagination} of published items",
    async (revision, { sandboxes }) => {
      const sandbox = sandboxes[revision];
      const [request, ...more] = subAccountsStream.requests({ kind: "full" }, masterOn(revision, 0));
      expect(more).toEqual([]);
      expect(request!.path).toBe("/v1/sub-organizations");
      const subs = [];
      for (const { body } of await pagesOf(sandbox, request!)) {
        expect(Object.keys(body).sort()).toEqual(["pagination", "sub_organizations"]);
        subs.push(...(body.sub_organizations as Record<string, unknown>[]));
      }
      expect(subs.map((s) => s.id)).toEqual([sandbox.world.accounts[1]!.id]);
      for (const sub of subs) expect(Object.keys(sub).sort()).toEqual([...SUB_ACCOUNT_FIELDS].sort());
    },
  );

  test.for(["2024", "2026"] as const)(
    "API revision %s: a call's transcription is answered under its CDR in the published shape",
    async (revision, { sandboxes }) => {
      const sandbox = sandboxes[revision];
      const truth = await ndjson<{ call_uuid: string; status: string }>(
        sandbox,
        "/_sandbox/truth/transcriptions?account=master&from=2026-08-01&to=2026-08-06",
      );
      const call = truth.find((t) => t.status === "completed")!;
      const [request] = transcriptionsStream.requests(
        { kind: "ids", items: [{ id: call.call_uuid, implied: { source: "call" } }] },
        masterOn(revision, sandbox.world.accounts[1]!.id),
      );
      expect(request!.path).toBe(
        revision === "2024"
          ? `/v1/cdr/${call.call_uuid}/transcription`
          : `/v1/cdrs/${call.call_uuid}/transcription`,
      );
      const answer = await platform(sandbox, request!.path);
      expect(answer.status).toBe(200);
      const body = answer.body as Record<string, unknown>;
      const fields: readonly string[] =
        revision === "2024"
          ? CALL_TRANSCRIPTION_FIELDS
          : [...CALL_TRANSCRIPTION_FIELDS, ...CALL_TRANSCRIPTION_2026_FIELDS];
      expect(Object.keys(body).sort()).toEqual([...fields].sort());
      expect(body.call_uuid).toBe(call.call_uuid);
      for (const turn of body.turns as Record<string, unknown>[]) {
        expect(Object.keys(turn).sort()).toEqual([...TURN_FIELDS].sort());
      }
      // speech-analytics is for uploaded audio: the call's uuid is unknown there.
      const wrong = await platform(sandbox, `/v1/speech-analytics/${call.call_uuid}`);
      expect(wrong.status).toBe(404);
    },
  );
});
