/**
 * Account time zones: the config's `timezone` of an account (an IANA name, validated with luxon),
 * UTC when it sets none, and a sub-account's own (`sub_account_timezones`) or else its master's.
 * The marts' local dates and hours are in these zones (see etl.account_time_zones).
 */
import { IANAZone } from "luxon";
import { subAccountName } from "./sub-account-name.js";

/** The zone of an account whose config sets none. */
export const DEFAULT_TIME_ZONE = "UTC";

/** A fixed UTC offset as people (and the platform's validation results) write it: `+02:00`, `UTC+04:00`, `GMT-5`. */
const FIXED_OFFSET = /^(?:UTC|GMT|Z)?\s*[+-]\s*\d{1,2}(?::?\d{2})?$/i;

/**
 * Why `zone` cannot be an account's time zone (one line naming `account` and how to fix it), or
 * undefined when it is an IANA zone luxon (and so the ICU data of Node) knows. A fixed offset is
 * refused: it would put half a year of a daylight-saving zone's calls on the wrong local hour.
 */
export function timeZoneProblem(account: string, zone: string, setting = "timezone"): string | undefined {
  if (FIXED_OFFSET.test(zone.trim())) {
    return `account ${account}: ${setting} "${zone}" is a fixed UTC offset, which ignores daylight saving; use the IANA name of the place, such as "Europe/Berlin" or "America/Los_Angeles" (or "Etc/GMT-2" for a zone that truly never changes)`;
  }
  if (!IANAZone.isValidZone(zone)) {
    return `account ${account}: ${setting} "${zone}" is not an IANA time zone name; use one such as "Europe/Berlin", "Asia/Kolkata" or "UTC" (list: https://en.wikipedia.org/wiki/List_of_tz_database_time_zones)`;
  }
  return undefined;
}

/** One warehouse account and the zone its local dates are in. */
export interface AccountTimeZone {
  readonly account: string;
  readonly timeZone: string;
}

/** What {@link accountTimeZones} reads of an account's config (AccountConfig has these). */
export interface AccountZones {
  readonly name: string;
  readonly timeZone?: string | undefined;
  readonly subAccountTimeZones?: Readonly<Record<number, string>> | undefined;
  readonly sources?: { readonly subAccounts: readonly number[] } | undefined;
}

/**
 * The zone of every warehouse account the config reads: each account's, and each of its
 * sub-accounts' (`<account>-sub-<id>`), own or inherited from the master.
 */
export function accountTimeZones(accounts: readonly AccountZones[]): AccountTimeZone[] {
  return accounts.flatMap((account) => {
    const own = account.timeZone ?? DEFAULT_TIME_ZONE;
    const subs = (account.sources?.subAccounts ?? []).map((id) => ({
      account: subAccountName(account.name, id),
      timeZone: account.subAccountTimeZones?.[id] ?? own,
    }));
    return [{ account: account.name, timeZone: own }, ...subs];
  });
}
