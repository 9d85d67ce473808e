import type { SandboxList } from "./sandbox-list.js";
import { SCAFFOLDED_LISTS } from "./scaffolded-lists.js";
import type { TruthStream } from "./truth.js";

/** A truth line (or a `/malformed` line's `raw`), parsed. */
type TruthLine = Readonly<Record<string, unknown>>;

/**
 * How a loader reaches a child record: `parent` only through a parent it holds (a call's
 * transcription is asked under the id of a CDR it loaded; a brand's appeals under the brand), so
 * the parent is a kept record of its truth; `list` through a list of the child's own (a
 * recording, a ledger line, a click), so the parent may also be a row the loader rejects: listed
 * in its stream's `/malformed` with `rejected: true`, under its `id` when the row lost it.
 */
export type ReachedThrough = "parent" | "list";

/** A reference from the records of one truth stream to those of another, at the same clock and account. */
export interface TruthReference {
  readonly parent: TruthStream;
  readonly through: ReachedThrough;
  /** The parent key a child line names, or null when this line names no parent of this stream. */
  childKey(line: TruthLine): string | null;
  /** The key of a parent line, or null when it has none of this kind. */
  parentKey(line: TruthLine): string | null;
}

const text = (value: unknown): string | null => (typeof value === "string" ? value : null);
/** A CDR's call id, under either revision's name. */
const callId = (line: TruthLine) => text(line.uuid) ?? text(line.call_id);
/** What a ledger line's `details` names after its label (`Outbound call <uuid>`, `Message <id>`). */
const named = (labels: readonly string[]) => (line: TruthLine) => {
  const details = text(line.details) ?? "";
  const label = labels.find((l) => details.startsWith(`${l} `));
  return label === undefined ? null : (details.slice(label.length + 1).split(" ")[0] ?? null);
};
/** A campaign message's recipient, campaign and short link: what a click on it names. */
const CAMPAIGN_LINK = /https:\/\/sbx\.link\/([0-9a-z]+)/;
const campaignMessageKey = (line: TruthLine): string | null => {
  const body = line.message_body as { text?: unknown } | undefined;
  const link = CAMPAIGN_LINK.exec(text(body?.text) ?? "")?.[1];
  return link === undefined || text(line.tag) === null ? null : `${text(line.to)} ${line.tag} ${link}`;
};

/**
 * The references between the truth exports, one entry per stream of `TRUTH_STREAMS` (an empty one
 * for a stream whose records name no other stream's; a test holds the two lists equal): the pairs the export promises to keep consistent at any clock
 * (docs/sandbox.md "Truth"). Every child a line names is in its parent's truth at the same clock:
 * kept, or for a child with a list of its own also rejected (`/malformed`). Aggregates (invoices,
 * trunk month-to-date totals) are not references.
 */
export const TRUTH_REFERENCES: Readonly<Partial<Record<TruthStream, readonly TruthReference[]>>> = {
  cdrs: [
    {
      parent: "sip_trunks",
      through: "list",
      childKey: (l) => text(l.sip_trunk),
      parentKey: (l) => text(l.name),
    },
    {
      parent: "numbers",
      through: "list",
      childKey: (l) => (l.direction === "received" ? text(l.to) : null),
      parentKey: (l) => text(l.number),
    },
  ],
  recordings: [{ parent: "cdrs", through: "list", childKey: (l) => text(l.call_uuid), parentKey: callId }],
  transcriptions: [
    { parent: "cdrs", through: "parent", childKey: (l) => text(l.call_uuid), parentKey: callId },
  ],
  transcription_requests: [
    { parent: "cdrs", through: "parent", childKey: (l) => text(l.uuid), parentKey: callId },
  ],
  transactions: [
    {
      parent: "cdrs",
      through: "list",
      childKey: named(["Outbound call", "Inbound call", "PSTN forwarding fee", "Call transcription"]),
      parentKey: callId,
    },
    {
      parent: "messages",
      through: "list",
      childKey: named(["Message", "Carrier fee"]),
      parentKey: (l) => text(l.message_id),
    },
  ],
  short_link_metrics: [
    {
      parent: "messages",
      through: "list",
      childKey: (l) => `${text(l.phone)} ${text(l.utm_campaign)} ${text(l.link_hash)}`,
      parentKey: campaignMessageKey,
    },
  ],
  brand_appeals: [
    {
      parent: "brands",
      through: "parent",
      childKey: (l) => text(l.brand_id),
      parentKey: (l) => text(l.brand_id),
    },
  ],
  messages: [],
  invoices: [],
  validations: [],
  uploaded_transcriptions: [],
  sip_trunks: [],
  numbers: [],
  brands: [],
  call_webhooks: [],
  sub_accounts: [],
  number_catalog: [],
  // A list `npm run scaffold:stream` added declares its references beside its rows (`references`).
  ...Object.fromEntries(
    (Object.entries(SCAFFOLDED_LISTS) as [string, SandboxList][]).map(([name, list]) => [
      name,
      (list.references ?? []) as readonly TruthReference[],
    ]),
  ),
};
