import type { ValidationResponse } from "@telecom-etl/platform/validation.js";
import { validationResponse } from "./generate-validation.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import type { SandboxAccount } from "./world.js";

/** The validation response of `account`'s token at the current clock, or null (unknown or not yet made). */
export function generateValidationLine(
  runtime: SandboxRuntime,
  account: SandboxAccount,
  token: string,
): ValidationResponse | null {
  const request = account.validations.find((v) => v.token === token);
  const nowMs = runtime.clock.now();
  if (!request || request.createdAtMs > nowMs) return null;
  return validationResponse(runtime.world.seed, request, nowMs);
}
