import type { z } from "zod";
import { jsonBody, ParamError, type SandboxRequest } from "./http-kit.js";

/**
 * Parses a JSON body with a zod schema. The first issue decides the answer: a missing field is a
 * 400, a present but invalid one a 422; both say "Missing or invalid parameter <field>".
 */
export function parseBody<T extends z.ZodType>(request: SandboxRequest, schema: T): z.infer<T> {
  const body = jsonBody(request);
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const name = String(issue.path[0] ?? "body");
  const missing = issue.path.length === 1 && !(name in body);
  throw new ParamError(missing ? 400 : 422, name);
}
