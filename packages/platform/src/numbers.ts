import { z } from "zod";
import { dateString, dateTimeString, decimalString } from "./common.js";

/** Where an owned number sends inbound calls. */
export const inboundCallDestinationSchema = z.looseObject({
  id: z.number().int(),
  destination: z.string(),
  priority: z.number().int(),
  transport: z.number().int(),
  trunk_id: z.number().int(),
  trunk_label: z.string(),
  srtp: z.boolean(),
});

/** A document uploaded for a number. */
export const didDocumentSchema = z.looseObject({
  id: z.number().int(),
  allow_replace: z.boolean(),
  did_number: z.string(),
  doc_content_type: z.string(),
  doc_file_name: z.string(),
  doc_type_id: z.number().int(),
  status: z.string(),
  url: z.string(),
});

/** Status of an owned number. */
export const DID_STATUSES = ["active", "inactive"] as const;

/** An owned phone number (DID) with its settings. */
export const didSchema = z.looseObject({
  id: z.number().int(),
  number: z.string(),
  activation_fee: decimalString,
  monthly_fee: decimalString,
  per_min: decimalString,
  city: z.string(),
  country: z.string(),
  country_short_name: z.string().length(2),
  destination: z.array(inboundCallDestinationSchema),
  channels: z.number().int(),
  require_docs: z.array(z.string()),
  documents: z.array(didDocumentSchema),
  domestic_cli: z.boolean(),
  label: z.string().nullable(),
  status: z.enum(DID_STATUSES),
  seconds: z.string(),
  added: dateTimeString,
  paid_until: dateString,
  sms_enabled: z.boolean(),
  sms_relay_url: z.string().nullable(),
  cnam: z.boolean().nullable(),
  call_recording_enabled: z.boolean(),
  transcription_enabled: z.boolean(),
  transcription_threshold: z.number().int(),
  state: z.string().optional(),
  free_min: z.number().int().optional(),
  unlimited: z.boolean().optional(),
  call_status_url: z.string().nullable().optional(),
});
/** An owned number. */
export type Did = z.infer<typeof didSchema>;

/** A kind of document a number may require (`doc_types` of the owned-numbers list). */
export const docTypeSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  title: z.string(),
});
/** A document type. */
export type DocType = z.infer<typeof docTypeSchema>;

/** Body of `PUT /v1/mydids/{id}`. */
export const updateDidRequestSchema = z.object({
  call_recording_enabled: z.boolean().optional(),
  transcription_enabled: z.boolean().optional(),
  transcription_threshold: z.number().int().min(0).optional(),
  sms_relay_url: z.string().nullable().optional(),
  call_status_url: z.string().optional(),
});
/** A number update. */
export type UpdateDidRequest = z.infer<typeof updateDidRequestSchema>;

/** A number available for purchase (cart items, available-numbers list); `channels` is a string. */
export const purchasableNumberSchema = z.looseObject({
  id: z.number().int(),
  number: z.string(),
  activation_fee: decimalString,
  monthly_fee: decimalString,
  per_min: decimalString,
  channels: z.string(),
  city: z.string(),
  country: z.string(),
  country_short_name: z.string().length(2),
  cnam: z.boolean(),
  domestic_cli: z.boolean(),
  free_min: z.number().int(),
  require_docs: z.array(z.unknown()),
  sms_enabled: z.boolean(),
  sms_price: z.number(),
});
/** A purchasable number. */
export type PurchasableNumber = z.infer<typeof purchasableNumberSchema>;

/** A city of a country's number catalog. */
export const citySchema = z.looseObject({
  area_code: z.number().int(),
  id: z.number().int(),
  name: z.string(),
});
/** A city. */
export type City = z.infer<typeof citySchema>;

/** Body of `PUT /v1/buy/cart`. */
export const cartRequestSchema = z.object({ ids: z.array(z.string()).min(1) });

/** `PUT /v1/buy/cart` answers the numbers added. */
export const cartResponseSchema = z.array(purchasableNumberSchema);
