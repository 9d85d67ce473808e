"""Writes dbt/seeds/numbering_plan_prefixes.csv: the country a dialled number belongs to, by the
longest prefix of its E.164 digits, from Google's libphonenumber metadata as the PyPI package
`phonenumbers` ships it. Run by `make seeds` in a throwaway venv (not the project's): the package
is a build-time source of the seed, not a dependency of the warehouse.

- Calling code 1 (the North American Numbering Plan) is split by area code: every area code
  200-999 is tried with sample subscriber numbers, and the region libphonenumber says the numbers
  belong to (US, CA, PR, BS, JM, ...) gets the 4-digit prefix `1` + area code. Area codes no
  region validates (unassigned, N11, ...) get no row: such a number falls back to the code's own
  row, `1` -> US (libphonenumber's main country for code 1), like toll-free 8XX numbers.
- Every other calling code maps to its main country; a region sharing the code that
  libphonenumber tells apart by leading digits (KZ in +7, IM in +44, VA in +39, AX in +358, ...)
  gets one row per minimal leading-digit prefix (up to 5 national digits).
"""

from __future__ import annotations

import csv
import re
import sys
from itertools import product
from pathlib import Path

import phonenumbers
from phonenumbers import COUNTRY_CODE_TO_REGION_CODE, PhoneMetadata
from phonenumbers.geocoder import _region_display_name

OUT = Path(__file__).resolve().parents[2] / "dbt" / "seeds" / "numbering_plan_prefixes.csv"
# Subscriber numbers tried for each NANP area code: exchanges 2XX-9XX, a few lines each.
NANP_SAMPLES = [f"{x}{line}" for x in range(200, 1000, 23) for line in ("0123", "4567", "8901")]
MAX_LEADING_DIGITS = 5


def country_name(region: str) -> str:
    """The region's English name from the package's locale data (the code itself when none).
    The package has no public function for a region's name: this is the one its geocoder uses."""
    return _region_display_name(region, "en") or region


def nanp_rows() -> list[tuple[str, int, str]]:
    """(prefix, calling code, region) for each area code some NANP region validates."""
    rows = []
    for area in range(200, 1000):
        votes: dict[str, int] = {}
        for sample in NANP_SAMPLES:
            number = phonenumbers.parse(f"+1{area}{sample}")
            region = phonenumbers.region_code_for_number(number)
            if region:
                votes[region] = votes.get(region, 0) + 1
        if votes:
            region = max(sorted(votes), key=lambda r: votes[r])
            rows.append((f"1{area}", 1, region))
    return rows


def leading_digit_prefixes(pattern: str) -> list[str]:
    """The minimal digit strings (1..MAX_LEADING_DIGITS long) that `pattern` matches whole."""
    regex = re.compile(pattern)
    found: list[str] = []
    for length in range(1, MAX_LEADING_DIGITS + 1):
        for digits in product("0123456789", repeat=length):
            s = "".join(digits)
            if any(s.startswith(p) for p in found):
                continue
            if regex.fullmatch(s):
                found.append(s)
    return found


def other_rows() -> list[tuple[str, int, str]]:
    """(prefix, calling code, region) for every calling code but 1."""
    rows = []
    for code, regions in sorted(COUNTRY_CODE_TO_REGION_CODE.items()):
        if code == 1:
            rows.append(("1", 1, "US"))
            continue
        main = regions[0]
        if main == "001":  # non-geographic codes (satellite, international freephone): no country
            continue
        rows.append((str(code), code, main))
        for region in regions[1:]:
            metadata = PhoneMetadata.metadata_for_region(region)
            if metadata is None or not metadata.leading_digits:
                continue
            for p in leading_digit_prefixes(metadata.leading_digits):
                rows.append((f"{code}{p}", code, region))
    return rows


def main() -> None:
    rows = sorted(set(nanp_rows() + other_rows()))
    prefixes = [r[0] for r in rows]
    if len(prefixes) != len(set(prefixes)):
        sys.exit("numbering_plan: a prefix maps to two regions")
    with OUT.open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["prefix", "calling_code", "country_iso2", "country_name"])
        for prefix, code, region in rows:
            w.writerow([prefix, code, region, country_name(region)])
    print(f"{OUT.name}: {len(rows)} prefixes from phonenumbers {phonenumbers.__version__}")


if __name__ == "__main__":
    main()
