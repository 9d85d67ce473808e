import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import { type AccountConfig, sourcesOf } from "../../config/config.js";
import type { RequestContext } from "../../streams/stream-definition.js";

/**
 * What the requests of an account's streams depend on besides the slice: its name, the API
 * revision it is read with, the ids its config names, the run's day, and for a sub-account read as
 * an account of its own, its id on the platform (discoveries are added per slice).
 */
export function requestContextOf(
  account: AccountConfig,
  revision: ApiRevision,
  today: string,
): Omit<RequestContext, "discovered"> {
  return {
    account: account.name,
    revision,
    sources: sourcesOf(account),
    today,
    ...(account.subAccountOf === undefined ? {} : { subAccountId: account.subAccountOf.id }),
  };
}
