{#- The account-local date of the UTC instant `at` (timestamptz) in the IANA zone `time_zone` (an
    expression; null is UTC, the zone of an account without a row in stg_etl__account_time_zones):
    the one definition of an account-local day, used by every fact and report with a `_local_date`. -#}
{% macro local_date(at, time_zone) -%}
    ({{ at }} at time zone coalesce({{ time_zone }}, 'UTC'))::date
{%- endmacro %}

{#- Whether the account-local day `local_date` in `time_zone` is only partly inside the UTC range the
    loader read: its first instant (local midnight) is before `loaded`.loaded_from_at, or its end
    (the next local midnight) after `loaded`.loaded_until_at — the first and last local days of a load
    of whole UTC days, for an account off UTC. `loaded` is the alias of a join of
    loaded_ranges_of(...) on account; null when the account has no dated window of those streams. -#}
{% macro is_partial_local_day(local_date, time_zone, loaded='loaded') -%}
    ({{ local_date }}::timestamp at time zone coalesce({{ time_zone }}, 'UTC') < {{ loaded }}.loaded_from_at
     or ({{ local_date }} + 1)::timestamp at time zone coalesce({{ time_zone }}, 'UTC') > {{ loaded }}.loaded_until_at)
{%- endmacro %}

{#- Per account: the UTC range the dated windows of every one of `streams` cover (int_stream_ranges_loaded),
    the intersection when there are several (a day is whole only when each of its streams read all
    of it); a stream the account does not load has no windows and does not narrow it. A subquery
    for `left join (...) as loaded using (account)`. -#}
{% macro loaded_ranges_of(streams) -%}
    select account, max(loaded_from_at) as loaded_from_at, min(loaded_until_at) as loaded_until_at
    from {{ ref('int_stream_ranges_loaded') }}
    where stream in ({{ sql_string_list(streams) }})
    group by account
{%- endmacro %}
