/**
 * Which revision of the platform's API an account is read with. Configured per account
 * (`api_revision: 2024|2026`), or `auto`: decided once per run by asking the platform for the 2026
 * CDR list (one request for a single row of today): answered → 2026; 404 → 2024 (the path does not
 * exist there). Whether the 2026 platform still answers the 2024 paths is not documented, so the
 * newer revision is preferred whenever it is there. The choice is logged.
 */

import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { resourcePath, windowQuery } from "@telecom-etl/platform/resource.js";
import type { ApiClient } from "../../api/http-client.js";
import type { ApiRevisionSetting } from "../../config/config.js";
import { AuthError, describeError, PermissionError, SliceError } from "../../core/errors.js";
import type { Logger } from "../../core/log.js";
import { addDays } from "../../core/utc-days.js";

/**
 * The request auto-detection sends: the 2026 CDR list, one row of `today` (with `revision`, the
 * same list of that revision: `telecom-etl check` asks it of an account whose revision is configured).
 */
export function revisionProbe(
  today: string,
  revision: ApiRevision = "2026",
): { path: string; query: Record<string, string | number> } {
  const day = windowQuery(CATALOGUE.cdrs, { start: today, lastDay: today, end: addDays(today, 1) });
  return {
    path: resourcePath(CATALOGUE.cdrs, revision),
    query: { ...day, type: "placed", page: 1, per_page: 1 },
  };
}

/** How the probe went: the platform's status, or what the client threw. */
export type ProbeOutcome = { readonly status: number } | { readonly error: unknown };

/** What a probe says: the revision and why, or why it cannot tell (runs then read with 2024). */
export type RevisionVerdict =
  | { readonly revision: ApiRevision; readonly because: string }
  | { readonly undecided: string };

/**
 * The revision the probe's outcome shows: answered → 2026, 404 → 2024 (the path does not exist
 * there), 400/422 → 2026 (the path exists; it only disliked the query). Throws the AuthError of a
 * refused key (the account stops); anything else cannot tell.
 */
export function revisionFromProbe(path: string, outcome: ProbeOutcome): RevisionVerdict {
  if ("status" in outcome) {
    return {
      revision: outcome.status === 404 ? "2024" : "2026",
      because: `GET ${path} answered ${outcome.status}`,
    };
  }
  const error = outcome.error;
  if (error instanceof AuthError) throw error;
  if (error instanceof SliceError && (error.context.status === 400 || error.context.status === 422)) {
    return { revision: "2026", because: `GET ${path} answered ${error.context.status}` };
  }
  return {
    undecided: error instanceof PermissionError ? "the key may not read calls" : describeError(error),
  };
}

/**
 * The revision to read an account with. Throws AuthError (the key is refused: the account stops);
 * any other failure of the probe falls back to 2024, the documented interface, with a warning.
 */
export async function resolveApiRevision(input: {
  readonly client: ApiClient;
  readonly setting: ApiRevisionSetting | undefined;
  readonly today: string;
  readonly log: Logger;
  readonly signal?: AbortSignal;
}): Promise<ApiRevision> {
  const { client, log } = input;
  const setting = input.setting ?? "auto";
  if (setting !== "auto") {
    log.info({ account: client.account, apiRevision: setting }, `API revision ${setting} (configured)`);
    return setting;
  }
  const probe = revisionProbe(input.today);
  const outcome: ProbeOutcome = await client
    .getJson(probe.path, probe.query, { signal: input.signal })
    .then((response) => ({ status: response.status }))
    .catch((error: unknown) => ({ error }));
  const verdict = revisionFromProbe(probe.path, outcome);
  if ("undecided" in verdict) {
    log.warn(
      { account: client.account, error: verdict.undecided },
      "could not tell the platform's API revision; reading with 2024 (set api_revision for this account to choose)",
    );
    return "2024";
  }
  log.info(
    { account: client.account, apiRevision: verdict.revision },
    `API revision ${verdict.revision} (auto: ${verdict.because})`,
  );
  return verdict.revision;
}
