import { callWebhookSchema } from "./call.js";
import { callTranscriptionSchema } from "./call-transcription.js";
import { cdrSchema } from "./cdr.js";
import { invoiceSchema } from "./invoice.js";
import { messageSchema } from "./message.js";
import { citySchema, didSchema, docTypeSchema, purchasableNumberSchema } from "./numbers.js";
import { invalidRecordingFiltersSchema, recordingSchema } from "./recording.js";
import { defineResource, type PlatformResource } from "./resource.js";
import { SCAFFOLDED_RESOURCES } from "./scaffolded-resources.js";
import { shortLinkMetricSchema } from "./short-link-metric.js";
import { sipTrunkSummarySchema } from "./sip-trunk.js";
import { subAccountSchema } from "./sub-account.js";
import { tenDlcAppealSchema, tenDlcBrandSchema } from "./ten-dlc.js";
import { TRANSACTION_EXACT_NUMBERS, transactionSchema } from "./transaction.js";
import { transcriptionSchema } from "./transcription.js";
import { validationResponseSchema } from "./validation.js";

/** An account's ledger and a sub-account's answer alike: everything but the path. */
const LEDGER = {
  kind: "windowed_list",
  permission: "billing:read",
  envelope: { shape: "paged", items: "transactions", emptyFlag: true },
  item: transactionSchema,
  window: { from: "from_date", to: "to_date", toBound: "last_day" },
  exactNumbers: TRANSACTION_EXACT_NUMBERS,
} as const;

/**
 * The platform's resources that the loader reads, each declared once: its path in each API
 * revision, the permission a restricted key needs, its envelope, its item schema, how it is read
 * and, for a date-windowed list, its window parameters. Sources: platform-api.md, and where that
 * says "not shown", platform-facts.md ("Lists and lookups the interface document does not show",
 * "API revision 2026"); see docs/decisions/0059-shapes-from-the-platform-s-published-reference.md.
 *
 * Everything else derives from here: `PLATFORM_ROUTES`' read routes and their permissions, each
 * stream's permission, paths, envelope and window query (`src/streams/`), the sandbox's routes and
 * served envelopes, and the tests' lists of resources. A new date-windowed list is declared in a
 * module of its own (`packages/platform/src/<name>.ts`, its schema beside its entry) and added here by
 * `npm run scaffold:stream` (the generated scaffolded-resources.ts).
 */
export const CATALOGUE = {
  /** Call detail records, asked once per direction (`type=placed|received`). */
  cdrs: defineResource({
    kind: "windowed_list",
    paths: { "2024": "/v1/cdr", "2026": "/v1/cdrs" },
    permission: "calls:read",
    envelope: { shape: "paged", items: "items" },
    item: cdrSchema,
    window: { from: "from", to: "to", toBound: "last_day" },
  }),
  /** Clicks on short links (`created_at` like `2023-07-19 18:23:42.120Z`). */
  short_link_metrics: defineResource({
    kind: "windowed_list",
    paths: { "2024": "/v1/short-links/metrics", "2026": "/v1/short-links/metrics" },
    permission: "campaigns:read",
    envelope: { shape: "paged", items: "metrics" },
    item: shortLinkMetricSchema,
    window: { from: "from", to: "to", toBound: "last_day" },
  }),
  /** Text messages, asked once per direction (`type=inbound|outbound`); `sent_before` excludes its day. */
  messages: defineResource({
    kind: "windowed_list",
    paths: { "2024": "/v3/messages", "2026": "/v3/messages" },
    permission: "messages:read",
    envelope: { shape: "paged", items: "items" },
    item: messageSchema,
    window: { from: "sent_after", to: "sent_before", toBound: "day_after" },
  }),
  /** Call recordings by the day they were created (the end of the call). */
  recordings: defineResource({
    kind: "windowed_list",
    paths: { "2024": "/v1/recordings", "2026": "/v1/recordings" },
    permission: "recordings:read",
    envelope: {
      shape: "paged",
      items: "recordings",
      nullable: true,
      extra: { invalid: invalidRecordingFiltersSchema.nullable() },
    },
    item: recordingSchema,
    window: { from: "from_date", to: "to_date", toBound: "last_day" },
  }),
  /** The account's billing ledger; amounts are JSON numbers read from their source text. */
  transactions: defineResource({
    ...LEDGER,
    paths: { "2024": "/v1/billing/transactions", "2026": "/v1/billing/transactions" },
  }),
  /** A sub-account's ledger, read with the master's key. */
  sub_account_transactions: defineResource({
    ...LEDGER,
    paths: {
      "2024": "/v1/sub-organizations/{id}/billing/transactions",
      "2026": "/v1/sub-organizations/{id}/billing/transactions",
    },
  }),
  /** Monthly statements. */
  invoices: defineResource({
    kind: "whole_list",
    paths: { "2024": "/v1/billing/invoices", "2026": "/v1/billing/invoices" },
    permission: "billing:read",
    envelope: { shape: "paged", items: "invoices", emptyFlag: true },
    item: invoiceSchema,
  }),
  /** The account's owned numbers (DIDs), with the document types numbers may require. */
  numbers: defineResource({
    kind: "whole_list",
    paths: { "2024": "/v1/mydids", "2026": "/v1/numbers" },
    permission: "numbers:read",
    envelope: { shape: "paged", items: "items", extra: { doc_types: docTypeSchema.array() } },
    item: didSchema,
  }),
  /** SIP trunks, as list summaries (`null` when the account has none). */
  sip_trunks: defineResource({
    kind: "whole_list",
    paths: { "2024": "/v1/trunks", "2026": "/v1/trunks" },
    permission: "trunks:read",
    envelope: { shape: "paged", items: "sip_trunks", nullable: true },
    item: sipTrunkSummarySchema,
    exactNumbers: ["charge"],
  }),
  /** The account's call webhooks (a bare array). */
  call_webhooks: defineResource({
    kind: "whole_list",
    paths: { "2024": "/v1/calls/webhooks", "2026": "/v1/calls/webhooks" },
    permission: "webhooks:read",
    envelope: { shape: "array" },
    item: callWebhookSchema,
  }),
  /** 10DLC brands (a bare array): where brand appeals are discovered. */
  ten_dlc_brands: defineResource({
    kind: "whole_list",
    paths: { "2024": "/v3/10dlc/brands", "2026": "/v3/10dlc/brands" },
    permission: "campaigns:read",
    envelope: { shape: "array" },
    item: tenDlcBrandSchema,
  }),
  /** A brand's appeals (a bare array). */
  brand_appeals: defineResource({
    kind: "per_parent_list",
    paths: { "2024": "/v3/10dlc/brands/{brand_id}/appeals", "2026": "/v3/10dlc/brands/{brand_id}/appeals" },
    permission: "campaigns:read",
    envelope: { shape: "array" },
    item: tenDlcAppealSchema,
  }),
  /** The account's sub-accounts, paged (`status` filter unused); their `api_key`s are secrets: never stored. */
  sub_accounts: defineResource({
    kind: "whole_list",
    paths: { "2024": "/v1/sub-organizations", "2026": "/v1/sub-organizations" },
    permission: "subaccounts:read",
    envelope: { shape: "paged", items: "sub_organizations" },
    item: subAccountSchema,
  }),
  /** One sub-account (its `api_key` is a secret: never stored); the fan-out reads each configured one's key here. */
  sub_account: defineResource({
    kind: "lookup",
    paths: { "2024": "/v1/sub-organizations/{id}", "2026": "/v1/sub-organizations/{id}" },
    permission: "subaccounts:read",
    envelope: { shape: "object" },
    item: subAccountSchema,
  }),
  /** A country's cities with numbers for sale. */
  number_cities: defineResource({
    kind: "per_parent_list",
    paths: { "2024": "/v1/buy/countries/{country}/cities", "2026": "/v1/buy/countries/{country_id}/cities" },
    permission: "numbers:read",
    envelope: { shape: "keyed", items: "cities" },
    item: citySchema,
  }),
  /** A city's numbers for sale (the number catalog). */
  available_numbers: defineResource({
    kind: "per_parent_list",
    paths: {
      "2024": "/v1/buy/countries/{country}/cities/{city}/dids",
      "2026": "/v1/buy/countries/{country_id}/cities/{city_id}/dids",
    },
    permission: "numbers:read",
    envelope: { shape: "paged", items: "dids" },
    item: purchasableNumberSchema,
  }),
  /** A call's transcription, under its CDR (403 when speech analytics is not provisioned). */
  call_transcription: defineResource({
    kind: "lookup",
    paths: { "2024": "/v1/cdr/{uuid}/transcription", "2026": "/v1/cdrs/{call_id}/transcription" },
    permission: "calls:read",
    envelope: { shape: "object" },
    item: callTranscriptionSchema,
  }),
  /** The transcription of uploaded audio, by its request id (202 while pending). */
  uploaded_transcription: defineResource({
    kind: "lookup",
    paths: { "2024": "/v1/speech-analytics/{uuid}", "2026": "/v1/speech-analytics/{request_id}" },
    permission: "calls:read",
    envelope: { shape: "object" },
    item: transcriptionSchema,
  }),
  /** A number validation request's results, by its token. */
  validation: defineResource({
    kind: "lookup",
    paths: { "2024": "/v1/validation/{uuid}", "2026": "/v1/validation/{request_id}" },
    permission: "validator:read",
    envelope: { shape: "object" },
    item: validationResponseSchema,
  }),
  ...SCAFFOLDED_RESOURCES,
} as const satisfies Readonly<Record<string, PlatformResource>>;

/** A resource's name in the catalogue. */
export type ResourceName = keyof typeof CATALOGUE;

/** Every resource with its name. */
export function catalogueEntries(): readonly {
  readonly name: ResourceName;
  readonly resource: PlatformResource;
}[] {
  return (Object.keys(CATALOGUE) as ResourceName[]).map((name) => ({ name, resource: CATALOGUE[name] }));
}
