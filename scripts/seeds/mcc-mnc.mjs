// Writes dbt/seeds/mobile_networks.csv: the mobile network (country, carrier) of each MCC/MNC pair,
// from the npm package `mcc-mnc-list` (its data is Wikipedia's "Mobile country code" tables). Run
// by `make seeds`, which installs the package into a temporary folder (not a project dependency)
// and passes its path: `node scripts/seeds/mcc-mnc.mjs <dir>/node_modules/mcc-mnc-list`.
//
// The package lists a pair once per country that uses it (T-Mobile US's 310-260 also under Puerto
// Rico and the US Virgin Islands): the seed keeps one row per pair, the one of the MCC's home
// country (the country with the most rows under that MCC), else the first listed. Test networks
// and rows without a numeric MNC are left out.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node scripts/seeds/mcc-mnc.mjs <path to node_modules/mcc-mnc-list>");
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
const records = JSON.parse(readFileSync(join(dir, "mcc-mnc-list.json"), "utf8"));

const usable = records.filter(
  (r) => /^\d{3}$/.test(r.mcc ?? "") && /^\d{2,3}$/.test(r.mnc ?? "") && r.type !== "Test" && r.countryCode,
);
// The home country of each MCC: the country code with the most rows under it (ties: alphabetical).
const countsByMcc = new Map();
for (const r of usable) {
  const counts = countsByMcc.get(r.mcc) ?? new Map();
  counts.set(r.countryCode, (counts.get(r.countryCode) ?? 0) + 1);
  countsByMcc.set(r.mcc, counts);
}
const home = new Map(
  [...countsByMcc].map(([mcc, counts]) => [
    mcc,
    [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0],
  ]),
);
const byPair = new Map();
for (const r of usable) {
  const key = `${r.mcc}-${r.mnc}`;
  const kept = byPair.get(key);
  if (!kept || (kept.countryCode !== home.get(r.mcc) && r.countryCode === home.get(r.mcc))) byPair.set(key, r);
}

/** A CSV field: quoted when it holds a comma, quote or line break. */
function field(value) {
  const s = (value ?? "").replace(/\s+/g, " ").trim();
  return /[",]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
const header = "mcc,mnc,country_iso2,country_name,carrier_name,operator_name,network_status";
const lines = [...byPair.values()]
  .sort((a, b) => (a.mcc + a.mnc < b.mcc + b.mnc ? -1 : 1))
  .map((r) =>
    [
      r.mcc,
      r.mnc,
      // ISO 3166-1 alpha-2 only: the package writes territories like Abkhazia as "GE-AB".
      r.countryCode.slice(0, 2),
      r.countryName,
      r.brand || r.operator,
      r.operator,
      r.status,
    ]
      .map(field)
      .join(","),
  );
const out = new URL("../../dbt/seeds/mobile_networks.csv", import.meta.url);
writeFileSync(out, `${[header, ...lines].join("\n")}\n`);
console.log(`mobile_networks.csv: ${lines.length} networks from ${pkg.name} ${pkg.version}`);
