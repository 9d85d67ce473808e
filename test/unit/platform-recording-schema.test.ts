import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { recordingSchema } from "@telecom-etl/platform/recording.js";
import { describe, expect, it } from "vitest";
import { recordingsStream } from "../../src/streams/recordings.js";
import { answered } from "../helpers/catalogue-schemas.js";

/** The example item of the platform's public reference ("Retrieve a recording"). */
const PUBLISHED = {
  id: 123,
  created_at: "2023-06-15T10:30:00Z",
  duration: 120,
  from: "1234567890",
  to: "0987654321",
  call_uuid: "aa566501-c591-4a8b-b3b9-cc1295398b72",
  url: "https://api.wavix.com/v1/recordings/uuid",
};
const PAGINATION = { current_page: 1, per_page: 100, total: 0, total_pages: 0 };

describe("recording schemas (published shape)", () => {
  it("accepts the published item and refuses one without a required field or with a wrong type", () => {
    expect(recordingSchema.parse(PUBLISHED)).toEqual(PUBLISHED);
    for (const field of Object.keys(PUBLISHED)) {
      const { [field]: _, ...without } = PUBLISHED as Record<string, unknown>;
      expect(recordingSchema.safeParse(without).success, field).toBe(false);
    }
    expect(recordingSchema.safeParse({ ...PUBLISHED, id: "123" }).success).toBe(false);
    expect(recordingSchema.safeParse({ ...PUBLISHED, duration: 1.5 }).success).toBe(false);
    expect(recordingSchema.safeParse({ ...PUBLISHED, created_at: "2023-06-15" }).success).toBe(false);
  });

  it("reads the list envelope with or without `invalid`, and a null list as no rows", () => {
    const page = {
      recordings: [PUBLISHED],
      invalid: { dids: [], sip_trunks: ["x"] },
      pagination: PAGINATION,
    };
    expect(answered(CATALOGUE.recordings).parse(page).invalid?.sip_trunks).toEqual(["x"]);
    expect(answered(CATALOGUE.recordings).safeParse({ recordings: [], pagination: PAGINATION }).success).toBe(
      true,
    );
    const empty = answered(CATALOGUE.recordings).parse({ recordings: null, pagination: PAGINATION });
    expect(empty.recordings).toBeNull();
    expect(recordingsStream.answer.rows(empty)).toEqual([]);
    expect(answered(CATALOGUE.recordings).safeParse({ recordings: [] }).success).toBe(false);
    expect(answered(CATALOGUE.recordings).safeParse({ items: [], pagination: PAGINATION }).success).toBe(
      false,
    );
  });
});
