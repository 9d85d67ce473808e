-- State for rpt_campaign_click_mix, not a report: one row per account × campaign × clicker phone
-- (digits; null for clicks without one) × dimension (operating_system, browser, language) ×
-- value, with the clicks of the settled days only, those before settled_before (macro
-- campaign_settle_boundary, the boundary of int_campaign_phones_settled), and the boundary whose
-- fold first wrote the row (first_settled_before: the clicker's first settled click with that
-- value is in that fold; rpt_campaign_click_mix counts a recent clicker as new unless a row was
-- there by its settled counts' boundary). In the marts schema so it is built, audited and
-- published with the report it feeds.
--
-- Incremental (delete+insert by the row's grain_key): a build folds the click days from the
-- boundary the state had to the new one into the rows those clicks touch, and leaves every other
-- row as it was, so a nightly writes one day of clicks' rows, not every live campaign's clickers.
-- The boundary only moves forward; `--full-refresh` folds every settled day. A state built before
-- first_settled_before (keyed by account × campaign) is emptied by the pre_hook and folded again
-- from every settled day.
{{ config(
    unique_key=[grain_key_column()],
    indexes=[{'columns': ['settled_before']}],
    pre_hook="{{ empty_state_without(this, 'first_settled_before') }}",
    post_hook=[{'sql': "{{ primary_key(this, [grain_key_column()]) }}", 'transaction': false}],
) }}
{%- set boundary = campaign_settle_boundary() %}
{%- set continues = is_incremental() and state_has_column(this, 'first_settled_before') %}
{%- set previous = settled_before(this) if continues else "'1970-01-01'::date" %}
with folded as (
    {{ campaign_click_value_rows('click_date >= ' ~ previous ~ ' and click_date < ' ~ boundary) | indent(4) }}
),

state_rows as (
    select account, campaign, phone, dimension, value, clicks, {{ boundary }} as first_settled_before,
           click_value_key as {{ grain_key_column() }}
    from folded
    {%- if continues %}
    union all
    -- The touched rows' state so far (each is re-written with the folded clicks added).
    select account, campaign, phone, dimension, value, clicks, first_settled_before, {{ grain_key_column() }}
    from {{ this }}
    where {{ grain_key_column() }} in (select click_value_key from folded)
    {%- endif %}
)

select
    account, campaign, phone, dimension, value,
    sum(clicks)::bigint        as clicks,
    {{ boundary }}             as settled_before,
    min(first_settled_before)  as first_settled_before,
    {{ grain_key_column() }}
from state_rows
group by account, campaign, phone, dimension, value, {{ grain_key_column() }}
