/**
 * Revisions of the platform's API: `2024` is platform-api.md; `2026` is the revision published in
 * 2026-06 (platform-facts.md "API revision 2026": renamed paths such as `/v1/cdr` → `/v1/cdrs` and
 * `/v1/mydids` → `/v1/numbers`, `call_id` / `parent_call_id` on CDRs, a call transcription under
 * its CDR with a shape of its own). Which one a platform answers is not announced.
 */
export const API_REVISIONS = ["2024", "2026"] as const;
/** A revision of the platform's API. */
export type ApiRevision = (typeof API_REVISIONS)[number];
