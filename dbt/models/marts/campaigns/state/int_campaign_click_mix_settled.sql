-- State for rpt_campaign_click_mix, not a report: one row per account × campaign × dimension
-- (operating_system, browser, language) × value with the clicks and distinct clicker phones of
-- the settled days only, those before settled_before (the boundary int_campaign_click_values_settled
-- was folded up to). In the marts schema so it is built, audited and published with the report.
--
-- Incremental (delete+insert by grain_key): a build adds to the rows it touches the clicks of the
-- days from its boundary to the per-phone state's (fct_link_clicks by its click_date index), and as
-- new clickers the phones of those clicks whose per-phone row holds those clicks only (no settled
-- click of theirs with that value before: one primary-key lookup each), so it never re-reads the
-- campaigns' clickers, and it agrees with the per-phone state however that state got there
-- (folded night by night, again from every day, or from an older copy). A boundary later than the
-- per-phone state's (that state re-folded to an earlier one) counts every settled day again.
{{ config(
    unique_key=[grain_key_column()],
    indexes=[{'columns': ['settled_before']}],
    post_hook=[{'sql': "{{ primary_key(this, [grain_key_column()]) }}", 'transaction': false}],
) }}
{%- set phones = ref('int_campaign_click_values_settled') %}
{%- set boundary = settled_before(phones) %}
{%- set previous = settled_before(this) if is_incremental() else "'1970-01-01'::date" %}
{%- if execute and is_incremental() and run_query("select " ~ previous ~ " > " ~ boundary).columns[0].values()[0] %}
    {%- set previous = "'1970-01-01'::date" %}
{%- endif %}
with folded as (
    -- Per account × campaign × phone × dimension × value: the clicks of the newly settled days.
    {{ campaign_click_value_rows('click_date >= ' ~ previous ~ ' and click_date < ' ~ boundary) | indent(4) }}
),

deltas as (
    select
        folded.account, folded.campaign, folded.dimension, folded.value,
        sum(folded.clicks)::bigint                                                         as clicks,
        -- A phone is new to the value when all its settled clicks with it are these.
        count(*) filter (where folded.phone is not null and phones.clicks = folded.clicks)::bigint as clickers
    from folded
    left join {{ phones }} as phones on phones.{{ grain_key_column() }} = folded.click_value_key
    group by 1, 2, 3, 4
),

keyed as (
    select deltas.*, {{ grain_hash(['account', 'campaign', 'dimension', 'value']) }} as {{ grain_key_column() }}
    from deltas
),

state_rows as (
    select account, campaign, dimension, value, clicks, clickers, {{ grain_key_column() }} from keyed
    {%- if is_incremental() %}
    union all
    -- The touched rows' counts so far (none when counting every settled day again).
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
