/**
 * Field lists copied by hand from platform-facts.md ("Lists and lookups the interface document does
 * not show"), not from the schemas in packages/platform/src: the shape tests check the sandbox's answers
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

/** An owned number (DID) of `GET /v1/mydids` / `/v1/numbers`, and the fields it may leave out. */
export const DID_FIELDS = [
  "id",
  "number",
  "activation_fee",
  "monthly_fee",
  "per_min",
  "city",
  "state",
  "country",
  "country_short_name",
  "destination",
  "channels",
  "require_docs",
  "documents",
  "label",
  "status",
  "seconds",
  "added",
  "paid_until",
  "sms_enabled",
  "sms_relay_url",
  "cnam",
  "call_recording_enabled",
  "transcription_enabled",
  "transcription_threshold",
  "domestic_cli",
] as const;
export const DID_OPTIONAL_FIELDS = ["free_min", "unlimited", "call_status_url"] as const;

/** A message of `GET /v3/messages` ("Messages"), and the field it may leave out. */
export const MESSAGE_FIELDS = [
  "message_id",
  "message_type",
  "from",
  "to",
  "direction",
  "mcc",
  "mnc",
  "message_body",
  "tag",
  "status",
  "segments",
  "charge",
  "submitted_at",
  "sent_at",
  "delivered_at",
  "error_message",
] as const;
export const MESSAGE_OPTIONAL_FIELDS = ["carrier_fees"] as const;
