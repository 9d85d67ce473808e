-- One row per SMS/MMS message, every direction and kind: outbound campaign (tagged), outbound
-- transactional (untagged) and inbound. Country and carrier of the other party come from the
-- message's mcc/mnc (seed mobile_networks, npm mcc-mnc-list) and, for the country, from the other
-- party's number (macros number_plan_joins / number_country, seed numbering_plan_prefixes, libphonenumber's plan).
-- Cost is the charge plus carrier fees, USD (a fee the platform did not send counts 0 and is
-- flagged: is_carrier_fees_missing).
--
-- Incremental (delete+insert by submitted_date), like fct_campaign_messages: a build re-builds the
-- days from macro settle_window_start (the latest day built here − var settle_days), the days whose
-- statuses and charges the loader still re-reads (delivery reports arrive up to 72 h late), reading
-- the landing table by its submitted_at index; older days are final. built_at stamps the rows a
-- build wrote (the tests check the latest build's rows). `--full-refresh` rebuilds every day.
-- Partitioned by month of submitted_date (macros month_partitions); a message the platform moved to
-- another day is deleted from its old one (row_key; the moves the loader logged, landing_moves).
{{
    config(
        materialized='incremental',
        unique_key='submitted_date',
        incremental_strategy='month_partitioned_delete_insert',
        partitioned_by_month=('submitted_date' if var('partition_facts', true) else none),
        row_key=['account', 'message_id'],
        landing_moves={'table': 'platform.messages', 'key': ['message_id']},
        on_schema_change='sync_all_columns',
        indexes=[{'columns': ['submitted_date']}, {'columns': ['built_at']}],
        post_hook=[
            {'sql': "{{ primary_key(this, ['account', 'message_id']) }}", 'transaction': false},
            {'sql': "{{ name_month_partitions(this) }}", 'transaction': false},
        ],
    )
}}
{#- Every day is re-built when an account's time zone changed since the last build (macro
    time_zones_changed_since; delete+insert replaces whole days), as in fct_campaign_messages. -#}
{%- set rebuild_all = is_incremental() and time_zones_changed_since(this) %}
with window_messages as (
    select
        *,
        case when direction = 'outbound' then to_number else from_number end as other_party_number,
        {{ phone_digits("case when direction = 'outbound' then to_number else from_number end") }} as other_party_digits
    from {{ ref('stg_platform__messages') }}
    {% if is_incremental() and not rebuild_all %}
    where submitted_at >= ({{ settle_window_start(this, 'submitted_date') }})::timestamp at time zone 'UTC'
    {% endif %}
),
messages as (
    -- The other party's country by the numbering plan (macros number_plan_joins, number_country).
    select m.*, {{ number_country('np', 'country_iso2') }} as number_country_iso2
    from window_messages as m
    {{- number_plan_joins('m.other_party_digits', 'np') | indent(4) }}
)
select
    m.account,
    m.message_id,
    m.direction,
    case
        when m.direction = 'inbound' then 'inbound'
        when m.tag is not null then 'campaign'
        else 'transactional'
    end                                                            as kind,
    m.tag,
    m.message_type                                                 as channel,
    m.from_number,
    m.to_number,
    case when m.direction = 'outbound' then m.from_number else m.to_number end as account_number,
    m.other_party_number,
    m.status,
    m.is_delivered,
    m.segments,
    m.charge_usd,
    m.carrier_fees_usd,
    m.is_carrier_fees_missing,
    m.charge_usd + coalesce(m.carrier_fees_usd, 0)                 as cost_usd,
    m.mcc,
    m.mnc,
    n.country_iso2                                                 as network_country_iso2,
    -- "No value" is NULL (decision 0098): no network, or one the seed does not hold.
    coalesce(n.carrier_name, n.operator_name)                      as carrier,
    m.number_country_iso2,
    coalesce(n.country_iso2, m.number_country_iso2)                as country_iso2,
    m.submitted_at,
    m.submitted_date,
    extract(hour from m.submitted_at at time zone 'UTC')::integer  as submitted_hour,
    coalesce(tz.time_zone, 'UTC')                                  as time_zone,
    {{ local_date('m.submitted_at', 'tz.time_zone') }} as submitted_local_date,
    extract(hour from m.submitted_at at time zone coalesce(tz.time_zone, 'UTC'))::integer
                                                                   as submitted_local_hour,
    m.sent_at,
    m.delivered_at,
    m.error_message,
    '{{ run_started_at.isoformat() }}'::timestamptz                as built_at
from messages as m
left join {{ ref('mobile_networks') }} as n
    on n.mcc = m.mcc and n.mnc = m.mnc
left join {{ ref('stg_etl__account_time_zones') }} as tz
    on tz.account = m.account
