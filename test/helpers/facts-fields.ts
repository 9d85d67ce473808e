/**
 * Field lists copied by hand from platform-facts.md ("Lists and lookups the interface document does
 * not show"), not from the schemas in src/platform: the shape tests check the sandbox's answers
 * against them, and the truth oracle knows which fields of a truth record are columns. A schema or a
 * sandbox that drifts from the facts fails a test that reads these.
 */

/** A SIP trunk as `GET /v1/trunks` summarises it (`access_token` is a credential). */
export const TRUNK_SUMMARY_FIELDS = [
  "id",
  "name",
  "label",
  "callerid",
  "auth_method",
  "host_request",
  "status",
  "charge",
  "talk_time",
  "passthrough",
  "multiple_numbers",
  "encrypted_media",
  "call_recording_enabled",
  "machine_detection_enabled",
  "transcription_enabled",
  "transcription_threshold",
  "access_token",
] as const;

/** A call's transcription under its CDR (both revisions). */
export const CALL_TRANSCRIPTION_FIELDS = [
  "transcript",
  "turns",
  "uuid",
  "language",
  "duration",
  "charge",
  "status",
  "transcription_date",
  "call_date",
  "call_uuid",
  "call_score",
  "call_summary",
] as const;

/** What the 2026 revision adds to a call's transcription: the call's own `date`, `from`, `to`. */
export const CALL_TRANSCRIPTION_2026_FIELDS = ["date", "from", "to"] as const;
