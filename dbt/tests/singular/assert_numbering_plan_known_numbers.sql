-- Known numbers map to their country through macros number_plan_joins / number_country (seed numbering_plan_prefixes):
-- the NANP split by area code (+1 212 New York -> US, +1 416 Toronto -> CA, +1 242 -> Bahamas,
-- +1 787 -> Puerto Rico, toll-free +1 800 -> US), a calling code (+44 20 London -> GB, +49 30
-- Berlin -> DE), a shared code split by leading digits (+7 727 Almaty -> KZ, +7 495 Moscow -> RU),
-- any formatting; no digits or an unassigned code -> null. Fails with each number mapped wrong.
with known (number, expected_iso2) as (
    values
        ('+1 212 555 0100', 'US'),
        ('12125550100', 'US'),
        ('+1 (416) 555-0100', 'CA'),
        ('+1 604 555 0100', 'CA'),
        ('+1 242 555 0100', 'BS'),
        ('+1 787 555 0100', 'PR'),
        ('+1 800 555 0100', 'US'),
        ('+44 20 7946 0000', 'GB'),
        ('+49 30 1234567', 'DE'),
        ('+7 727 123 4567', 'KZ'),
        ('+7 495 123 4567', 'RU'),
        ('+52 55 1234 5678', 'MX'),
        ('ACME', null),
        ('+999 123', null)
)
select k.number, k.expected_iso2, {{ number_country('np', 'country_iso2') }} as mapped_iso2
from known as k
{{- number_plan_joins("regexp_replace(k.number, '\\D', '', 'g')", 'np') }}
where {{ number_country('np', 'country_iso2') }} is distinct from k.expected_iso2
