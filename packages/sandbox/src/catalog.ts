/**
 * Static reference data of the simulated platform: outbound destinations with per-minute rates by
 * country and carrier, the cities numbers are sold in, company names. Rates are micro-dollars.
 */

/**
 * Real area codes of the North American Numbering Plan (NANPA's assignments): numbers the sandbox
 * dials or texts in the US and Canada use them, so a numbering plan tells the two countries apart
 * as it would on the live platform.
 */
export const US_AREA_CODES: readonly number[] = [
  212, 213, 312, 713, 305, 206, 617, 303, 404, 415, 646, 718, 202, 214, 480, 512, 602, 702, 801, 919,
];
/** Real Canadian area codes (Toronto, Vancouver, Montreal, Calgary, Ottawa, Edmonton, ...). */
export const CA_AREA_CODES: readonly number[] = [416, 604, 514, 403, 613, 780, 905, 647, 902, 204];
/** US and Canadian area codes, four US to one Canadian: where the sandbox's customers live. */
export const NANP_CUSTOMER_AREA_CODES: readonly number[] = [
  ...US_AREA_CODES,
  ...US_AREA_CODES.slice(0, 10),
  ...CA_AREA_CODES.slice(0, 7),
];

/** An outbound destination as the CDR `destination` field names it, with its rate. */
export interface Destination {
  readonly label: string;
  /** Country calling code, digits. */
  readonly countryCode: string;
  /** Digits after the country code. */
  readonly nationalLength: number;
  /** NANP destinations: the real area codes its numbers are dialled with (US and Canada share code 1). */
  readonly areaCodes?: readonly number[];
  readonly ratePerMinuteMicros: number;
  readonly weight: number;
}

/** Outbound destinations: country, optionally with mobile carrier or city. */
export const DESTINATIONS: readonly Destination[] = [
  {
    label: "United States",
    countryCode: "1",
    nationalLength: 10,
    ratePerMinuteMicros: 9_000,
    weight: 40,
    areaCodes: US_AREA_CODES,
  },
  {
    label: "Canada",
    countryCode: "1",
    nationalLength: 10,
    ratePerMinuteMicros: 10_000,
    weight: 9,
    areaCodes: CA_AREA_CODES,
  },
  { label: "United Kingdom", countryCode: "44", nationalLength: 10, ratePerMinuteMicros: 15_000, weight: 6 },
  {
    label: "United Kingdom - Mobile Vodafone",
    countryCode: "44",
    nationalLength: 10,
    ratePerMinuteMicros: 32_000,
    weight: 4,
  },
  {
    label: "Germany - Berlin",
    countryCode: "49",
    nationalLength: 10,
    ratePerMinuteMicros: 18_000,
    weight: 3,
  },
  {
    label: "Germany - Mobile T-Mobile",
    countryCode: "49",
    nationalLength: 11,
    ratePerMinuteMicros: 65_000,
    weight: 3,
  },
  { label: "France - Paris", countryCode: "33", nationalLength: 9, ratePerMinuteMicros: 17_000, weight: 3 },
  {
    label: "France - Mobile Orange",
    countryCode: "33",
    nationalLength: 9,
    ratePerMinuteMicros: 58_000,
    weight: 2,
  },
  {
    label: "Mexico - Mexico City",
    countryCode: "52",
    nationalLength: 10,
    ratePerMinuteMicros: 20_000,
    weight: 4,
  },
  {
    label: "Mexico - Mobile Telcel",
    countryCode: "52",
    nationalLength: 10,
    ratePerMinuteMicros: 45_000,
    weight: 5,
  },
  {
    label: "India - Mobile Airtel",
    countryCode: "91",
    nationalLength: 10,
    ratePerMinuteMicros: 25_000,
    weight: 4,
  },
  {
    label: "Brazil - Sao Paulo",
    countryCode: "55",
    nationalLength: 10,
    ratePerMinuteMicros: 22_000,
    weight: 2,
  },
  {
    label: "Australia - Mobile Telstra",
    countryCode: "61",
    nationalLength: 9,
    ratePerMinuteMicros: 60_000,
    weight: 2,
  },
  {
    label: "Philippines - Mobile Globe",
    countryCode: "63",
    nationalLength: 10,
    ratePerMinuteMicros: 120_000,
    weight: 2,
  },
  {
    label: "Nigeria - Mobile MTN",
    countryCode: "234",
    nationalLength: 10,
    ratePerMinuteMicros: 185_000,
    weight: 1,
  },
  { label: "Cuba", countryCode: "53", nationalLength: 8, ratePerMinuteMicros: 950_000, weight: 0.2 },
];

/** A US city numbers are sold in. */
export interface CatalogCity {
  readonly id: number;
  readonly name: string;
  readonly areaCode: number;
  readonly state: string;
}

/** Cities of the number catalog (country 1 = United States). */
export const US_CITIES: readonly CatalogCity[] = [
  { id: 101, name: "New York", areaCode: 212, state: "NY" },
  { id: 102, name: "Los Angeles", areaCode: 213, state: "CA" },
  { id: 103, name: "Chicago", areaCode: 312, state: "IL" },
  { id: 104, name: "Houston", areaCode: 713, state: "TX" },
  { id: 105, name: "Miami", areaCode: 305, state: "FL" },
  { id: 106, name: "Seattle", areaCode: 206, state: "WA" },
  { id: 107, name: "Boston", areaCode: 617, state: "MA" },
  { id: 108, name: "Denver", areaCode: 303, state: "CO" },
  { id: 109, name: "Atlanta", areaCode: 404, state: "GA" },
  { id: 110, name: "San Francisco", areaCode: 415, state: "CA" },
];

/** Company names given to accounts (master first). */
export const COMPANY_NAMES = [
  "Northwind Telecom",
  "Bluebird Logistics",
  "Cedar Health Clinics",
  "Harbor Realty Group",
  "Summit Auto Care",
  "Lumen Dental",
  "Orchard Insurance",
  "Pioneer Solar",
  "Riverbend Legal",
  "Maple Street Bakery",
] as const;

/** Share of calls per UTC hour of day (business hours of the Americas peak around 14-22 UTC). */
export const HOURLY_WEIGHTS: readonly number[] = [
  2.0, 1.4, 1.0, 0.7, 0.5, 0.5, 0.6, 0.9, 1.4, 2.0, 2.8, 3.6, 4.4, 5.6, 6.8, 7.4, 7.6, 7.4, 7.2, 7.0, 6.4,
  5.4, 4.2, 3.0,
];

/** Volume factor by UTC weekday (Sunday first); averages 1 over a week. */
export const WEEKDAY_FACTORS: readonly number[] = [0.7, 1.1, 1.1, 1.1, 1.1, 1.05, 0.85];

/** Transcription price per billed minute. */
export const TRANSCRIPTION_RATE_MICROS = 24_000;

/** PSTN forwarding price per billed minute of inbound calls forwarded to a phone number. */
export const FORWARD_RATE_MICROS = 12_000;

/** Price per number of an HLR validation. */
export const VALIDATION_PRICE_MICROS = 5_000;

/** Price of one SMS segment, outbound or inbound. */
export const SMS_SEGMENT_PRICE_MICROS = 7_500;

/** Price of an outbound MMS (one segment). */
export const MMS_OUTBOUND_PRICE_MICROS = 20_000;

/** Price of an inbound MMS (one segment). */
export const MMS_INBOUND_PRICE_MICROS = 10_000;

/** Carrier fee per delivered SMS segment. */
export const SMS_CARRIER_FEE_MICROS = 3_000;

/** Carrier fee per delivered MMS. */
export const MMS_CARRIER_FEE_MICROS = 5_000;
