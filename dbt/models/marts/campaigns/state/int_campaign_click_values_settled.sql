-- State for rpt_campaign_click_mix, not a report: one row per account × campaign × clicker phone
-- (digits; null for clicks without one) × dimension (operating_system, browser, language) ×
-- value, with the clicks of the settled days only, those before settled_before (macro
-- campaign_settle_boundary, the boundary of int_campaign_phones_settled). In the marts schema so
-- it is built, audited and published with the report it feeds.
--
-- Incremental (delete+insert by account × campaign): a build folds the click days from the
-- boundary the state had to the new one into it and re-writes each touched campaign's rows; the
-- boundary only moves forward; `--full-refresh` folds every settled day. Configured for its
-- folder (dbt_project.yml, marts.campaigns.state).
{%- set boundary = campaign_settle_boundary() %}
{%- set previous = settled_before(this) if is_incremental() else "'1970-01-01'::date" %}
with folded as (
    {{ campaign_click_value_rows('click_date >= ' ~ previous ~ ' and click_date < ' ~ boundary) | indent(4) }}
),

state_rows as (
    select * from folded
    {%- if is_incremental() %}
    union all
    -- The touched campaigns' state so far (their rows are re-written whole).
    select account, campaign, phone, dimension, value, clicks
    from {{ this }}
    where (account, campaign) in (select account, campaign from folded)
    {%- endif %}
)

select account, campaign, phone, dimension, value, sum(clicks)::bigint as clicks, {{ boundary }} as settled_before
from state_rows
group by 1, 2, 3, 4, 5
