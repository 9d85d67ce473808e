import { z } from "zod";

/** A token for the embeddable widget, bound to a SIP trunk. */
export const widgetTokenSchema = z.looseObject({
  token: z.string().min(1),
  uuid: z.string().min(1),
  sip_trunk: z.string(),
  payload: z.record(z.string(), z.unknown()),
  ttl: z.number().int().nullable(),
});
/** A widget token. */
export type WidgetToken = z.infer<typeof widgetTokenSchema>;

/** Body of `POST /v2/webrtc/tokens`. */
export const createWidgetTokenRequestSchema = z.object({
  sip_trunk: z.string().min(1),
  payload: z.record(z.string(), z.unknown()).optional(),
  ttl: z.number().int().min(1).nullable().optional(),
});
/** A widget token request. */
export type CreateWidgetTokenRequest = z.infer<typeof createWidgetTokenRequestSchema>;
