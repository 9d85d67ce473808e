-- State for rpt_campaign_click_mix, not a report: one row per account × campaign × dimension
-- (operating_system, browser, language) × value with the clicks and distinct clicker phones of
-- the settled days only, those before settled_before (the boundary int_campaign_click_values_settled
-- was folded up to). In the marts schema so it is built, audited and published with the report.
--
-- Incremental (delete+insert by grain_key): a build adds to the touched rows the clicks of the days
-- from its boundary to the per-phone state's (fct_link_clicks by its click_date index) and the
-- clickers the per-phone state first wrote in those folds (its first_settled_before index), so it
-- never re-reads the campaigns' clickers. It re-counts from every settled day when it has no
-- boundary yet, or when the per-phone state was re-folded whole after it (its oldest
-- first_settled_before is later than this state's boundary: the clickers' first folds are lost).
{{ config(
    unique_key=[grain_key_column()],
    indexes=[{'columns': ['settled_before']}],
    post_hook=[{'sql': "{{ primary_key(this, [grain_key_column()]) }}", 'transaction': false}],
) }}
{%- set phones = ref('int_campaign_click_values_settled') %}
{%- set boundary = settled_before(phones) %}
{%- set previous = settled_before(this) if is_incremental() else "'1970-01-01'::date" %}
{%- if execute and is_incremental() %}
    {%- set oldest = date_literal("select coalesce(min(first_settled_before), '1970-01-01'::date) from " ~ phones) %}
    {%- set refolded = run_query("select " ~ oldest ~ " > " ~ previous).columns[0].values()[0] %}
    {%- set previous = "'1970-01-01'::date" if refolded else previous %}
{%- endif %}
with deltas as (
    select account, campaign, dimension, value, clicks, 0::bigint as clickers
    from (
        {{ campaign_click_value_rows('click_date >= ' ~ previous ~ ' and click_date < ' ~ boundary) | indent(8) }}
    ) as folded
    union all
    select account, campaign, dimension, value, 0::bigint, count(*)
    from {{ phones }}
    where phone is not null and first_settled_before > {{ previous }} and first_settled_before <= {{ boundary }}
    group by 1, 2, 3, 4
),

keyed as (
    select deltas.*, {{ dbt_utils.generate_surrogate_key(['account', 'campaign', 'dimension', 'value']) }} as {{ grain_key_column() }}
    from deltas
),

state_rows as (
    select account, campaign, dimension, value, clicks, clickers, {{ grain_key_column() }} from keyed
    {%- if is_incremental() %}
    union all
    -- The touched rows' counts so far.
    select account, campaign, dimension, value, clicks, clickers, {{ grain_key_column() }}
    from {{ this }}
    where {{ previous }} > '1970-01-01'::date
      and {{ grain_key_column() }} in (select {{ grain_key_column() }} from keyed)
    {%- endif %}
)

select
    account, campaign, dimension, value,
    sum(clicks)::bigint   as clicks,
    sum(clickers)::bigint as clickers,
    {{ boundary }}        as settled_before,
    {{ grain_key_column() }}
from state_rows
group by account, campaign, dimension, value, {{ grain_key_column() }}
