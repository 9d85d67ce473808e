import { z } from "zod";
import { dateTimeString } from "./common.js";

/** An API key as `POST /v1/api-keys` returns it (`value` only at creation). */
export const apiKeySchema = z.looseObject({
  id: z.number().int(),
  label: z.string(),
  value: z.string().optional(),
  is_active: z.boolean(),
  is_restriction: z.boolean(),
  permitted_ips: z.array(z.string()),
  created_at: dateTimeString,
});
/** An API key. */
export type ApiKey = z.infer<typeof apiKeySchema>;

/** Body of `POST /v1/api-keys`; `permissions` (sandbox and console: per-resource level) makes a key restricted. */
export const createApiKeyRequestSchema = z.object({
  label: z.string().optional(),
  is_active: z.boolean().optional(),
  is_restriction: z.boolean().optional(),
  permitted_ips: z.array(z.ipv4()).optional(),
  permissions: z.record(z.string(), z.enum(["none", "read", "write"])).optional(),
});
/** A key creation request. */
export type CreateApiKeyRequest = z.infer<typeof createApiKeyRequestSchema>;
