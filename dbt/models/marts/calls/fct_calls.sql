-- One row per call leg (account × direction × call_uuid), with its cost, root call, destination
-- country, recording and charge flags: the grain BI slices calls by.
--
-- Incremental: a run merges on the key and re-processes every leg whose called_at is at or after
-- (latest call_date already built − var settle_days, default 3): CDRs, charges, recordings of the
-- last days still change while the loader settles them; and every leg of an account whose time zone
-- changed since the last build (macro time_zones_changed_since). `--full-refresh` rebuilds everything.
-- built_at stamps the rows a build wrote (dbt's run_started_at; a re-processed leg that did not
-- change is not written again): tests of this model check the rows of its latest build.
-- Partitioned by month of call_date (macros month_partitions: one partition per month, the merge
-- reads only the months of its window, a leg the platform moved to another day is deleted from
-- its old one: the moves the loader logged, landing_moves; var partition_facts false builds a
-- plain table). Indexes:
-- the key + call_date (the primary key, macro primary_key: a partitioned table's key must hold
-- call_date; the merge keeps the key alone unique and finds its rows by it), call_date (the
-- reports read their window by it), built_at (tests);
-- analyzed after a build that leaves its statistics stale (macro analyze_if_stale: a full refresh,
-- or more than a tenth of its rows changed since the last analyze).
{{
    config(
        materialized='incremental',
        unique_key=['account', 'direction', 'call_uuid'],
        incremental_strategy='month_partitioned_merge',
        landing_moves={'table': 'platform.cdrs', 'key': ['direction', 'call_uuid']},
        partitioned_by_month=('call_date' if var('partition_facts', true) else none),
        on_schema_change='append_new_columns',
        post_hook=[
            '{{ analyze_if_stale(this) }}',
            {'sql': "{{ primary_key(this, ['account', 'direction', 'call_uuid']) }}", 'transaction': false},
            {'sql': "{{ name_month_partitions(this) }}", 'transaction': false},
        ],
        indexes=[
            {'columns': ['call_date']},
            {'columns': ['built_at']},
        ],
    )
}}
{#- A table built before this model became incremental, or before its newest column, lacks it:
    re-process and re-write every leg once (merge fills them in, on_schema_change adds them) instead
    of only the recent days' changed legs. destination_country_iso2 came with the numbering plan
    (seed numbering_plan_prefixes), which also changed older legs' destination_country (NANP split).
    is_cost_partial came with macro call_cost (issue 35: a missing charge no longer drops the fee). -#}
{%- set built_columns = adapter.get_columns_in_relation(this) | map(attribute='name') | list if is_incremental() else [] -%}
{%- set has_newest_columns = 'root_call_id' in built_columns and 'call_local_date' in built_columns
                             and 'estimated_missing_charge_usd' in built_columns
                             and 'destination_country_iso2' in built_columns
                             and 'is_cost_partial' in built_columns -%}
{%- set window_start = settle_window_start(this) if is_incremental() else none -%}
{%- set compared_columns = built_columns | reject('equalto', 'built_at') | list -%}
{%- set rezoned = time_zones_changed_since(this) if is_incremental() else [] -%}
with legs as (
    select *
    from {{ ref('int_calls_costed') }}
    {% if is_incremental() and has_newest_columns %}
    where called_at is null
       or called_at >= {{ window_start }}::timestamp at time zone 'UTC'
       {% if rezoned %}or account in ({{ sql_string_list(rezoned) }}){% endif %}
    {% endif %}
),
destination_codes as (
    -- The dialled number's country by the numbering plan (macros number_plan_joins and
    -- number_country: longest prefix of seed numbering_plan_prefixes, NANP split by area code),
    -- one hash join per prefix length, so it stays cheap on large loads.
    select
        d.account,
        d.direction,
        d.call_uuid,
        {{ number_country('np', 'calling_code') }} as calling_code,
        {{ number_country('np', 'country_name') }} as country_name,
        {{ number_country('np', 'country_iso2') }} as country_iso2
    from (
        select account, direction, call_uuid, regexp_replace(to_number, '\D', '', 'g') as digits
        from legs
    ) as d
    {{- number_plan_joins('d.digits', 'np') | indent(4) }}
),
roots as (
    -- The walk up parent_call_uuid (macro call_roots), started from this build's legs only.
    {{ call_roots('legs', ref('stg_platform__cdrs')) | indent(4) }}
),
recordings as (
    -- Listed recordings by call: a call has at most one, each with a URL (required by the platform).
    select account, call_uuid, true as has_recording
    from {{ ref('stg_platform__recordings') }}
    group by 1, 2
),
built as (
    select
        l.account,
        l.direction,
        l.call_uuid,
        l.parent_call_uuid,
        l.called_at,
        l.call_date,
        extract(hour from l.called_at at time zone 'UTC')::integer              as call_hour,
        coalesce(tz.time_zone, 'UTC')                                           as time_zone,
        {{ local_date('l.called_at', 'tz.time_zone') }}          as call_local_date,
        extract(hour from l.called_at at time zone coalesce(tz.time_zone, 'UTC'))::integer
                                                                                as call_local_hour,
        l.called_at + make_interval(secs => l.duration_seconds)                 as ended_at,
        l.from_number,
        l.to_number,
        case when l.direction = 'placed' then l.from_number else l.to_number end as account_number,
        case when l.direction = 'placed' then l.to_number else l.from_number end as other_party_number,
        l.disposition,
        l.is_answered,
        l.duration_seconds,
        l.billed_minutes,
        l.destination,
        dc.calling_code                                                         as destination_calling_code,
        dc.country_name                                                         as destination_country,
        dc.country_iso2                                                         as destination_country_iso2,
        l.sip_trunk                                                             as placing_trunk_name,
        -- The trunk that carried the leg: its own for a placed leg, the trunk a received call was
        -- forwarded to when its destination is one of the account's trunks.
        coalesce(l.sip_trunk, t.trunk_name)                                     as trunk_name,
        l.answered_by,
        l.answered_by = 'machine'                                               as is_machine_answered,
        l.parent_call_uuid is not null                                          as is_child_leg,
        case
            when l.parent_call_uuid is null then l.call_uuid
            else coalesce(r.root_call_uuid, l.parent_call_uuid)
        end                                                                     as root_call_id,
        coalesce(r.leg_depth, 0)                                                as leg_depth,
        l.direction = 'received' and l.forward_fee_usd is not null              as is_forwarded,
        case
            when l.direction <> 'received' or l.destination is null then null
            when l.destination like 'sip:%' then 'sip_uri'
            when t.trunk_name is not null then 'trunk'
            when l.destination ~ '^\+?[0-9]+$' then 'pstn'
            else 'other'
        end                                                                     as forward_target_kind,
        coalesce(rec.has_recording, false)                                      as has_recording,
        l.per_minute_usd,
        l.charge_usd,
        l.forward_fee_usd,
        l.is_charge_missing,
        l.is_cost_partial,
        l.estimated_missing_charge_usd,
        l.total_cost_usd,
        case
            when l.billed_minutes > 0 and not l.is_charge_missing
                then coalesce(l.charge_usd, 0) / l.billed_minutes
        end                                                                     as effective_rate_usd_per_minute,
        '{{ run_started_at.isoformat() }}'::timestamptz                         as built_at
    from legs as l
    left join destination_codes as dc
        on dc.account = l.account and dc.direction = l.direction and dc.call_uuid = l.call_uuid
    left join roots as r
        on r.account = l.account and r.direction = l.direction and r.call_uuid = l.call_uuid
    left join {{ ref('stg_platform__sip_trunks') }} as t
        on t.account = l.account and t.trunk_name = coalesce(l.sip_trunk, l.destination)
    left join recordings as rec
        on rec.account = l.account and rec.call_uuid = l.call_uuid
    left join {{ ref('stg_etl__account_time_zones') }} as tz
        on tz.account = l.account
)
select * from built
{#- A table without the newest columns gets them on every leg (the comparison would skip them). -#}
{% if is_incremental() and has_newest_columns %}
-- A leg whose every column is what the table already holds is not written again: most legs of
-- the settled days do not change, and rewriting them costs the merge, the indexes and the tests.
-- (The table side is read by its call_date index; an undated leg is always written again.)
where not exists (
    select 1
    from {{ this }} as t
    where t.account = built.account
      and t.direction = built.direction
      and t.call_uuid = built.call_uuid
      and t.call_date >= {{ window_start }}
      and ({% for c in compared_columns %}t.{{ c }}{{ ', ' if not loop.last }}{% endfor %})
          is not distinct from ({% for c in compared_columns %}built.{{ c }}{{ ', ' if not loop.last }}{% endfor %})
)
{% endif %}
{% if not is_incremental() and not config.get('partitioned_by_month') %}
-- A full refresh writes the legs in call_date order (partitioned: macro postgres__create_table_as
-- does). The joins above shuffle them, and a table
-- whose every page holds legs of every day makes a read of the last days (a nightly's window, in
-- this model's merge and in every report built from it) read the whole table through its
-- call_date index; in date order the window is the table's last pages. Nightly merges then append
-- new days at the end and keep that order.
order by call_date
{% endif %}
