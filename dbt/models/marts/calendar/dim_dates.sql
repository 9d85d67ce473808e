-- One row per calendar date from 2015-01-01 to 2040-12-31: the date dimension BI joins any `_date`
-- or `_local_date` column to (year, quarter, month, ISO week and weekday, weekend, period starts).
-- Weeks are ISO weeks (Monday first; iso_year is the year the week belongs to).
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['calendar_date']) }}", 'transaction': false}]) }}
with days as (
    select d::date as calendar_date
    from generate_series('2015-01-01'::date, '2040-12-31'::date, interval '1 day') as d
)
select
    calendar_date,
    extract(year from calendar_date)::integer                           as year,
    extract(quarter from calendar_date)::integer                        as quarter,
    extract(month from calendar_date)::integer                          as month,
    trim(to_char(calendar_date, 'Month'))                               as month_name,
    extract(day from calendar_date)::integer                            as day_of_month,
    extract(doy from calendar_date)::integer                            as day_of_year,
    extract(isoyear from calendar_date)::integer                        as iso_year,
    extract(week from calendar_date)::integer                           as iso_week,
    extract(isodow from calendar_date)::integer                         as iso_day_of_week,
    trim(to_char(calendar_date, 'Day'))                                 as day_name,
    extract(isodow from calendar_date) in (6, 7)                        as is_weekend,
    date_trunc('week', calendar_date)::date                             as week_start_date,
    date_trunc('month', calendar_date)::date                            as month_start_date,
    (date_trunc('month', calendar_date) + interval '1 month - 1 day')::date as month_end_date,
    date_trunc('quarter', calendar_date)::date                          as quarter_start_date,
    date_trunc('year', calendar_date)::date                             as year_start_date,
    extract(day from date_trunc('month', calendar_date) + interval '1 month - 1 day')::integer
                                                                        as days_in_month,
    to_char(calendar_date, 'YYYY-MM')                                   as year_month
from days
