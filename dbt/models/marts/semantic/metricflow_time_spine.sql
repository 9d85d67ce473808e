-- One row per UTC calendar day, 2015-01-01 to 2040-12-31: the time spine MetricFlow joins metrics
-- to (a day with no calls still has a row, cumulative metrics have every day). A plain table of
-- ~9,500 dates rebuilt by every build (a few milliseconds), published with the marts.
{{ config(materialized='table') }}
select day::date as date_day
from generate_series('2015-01-01'::date, '2040-12-31'::date, interval '1 day') as days (day)
