-- Every call cost mart reconciles with rpt_usage_daily (calls + forward_fees, what the platform
-- billed) to the cent on the same grain (issue 35; macro call_cost_measures): per account × UTC day
-- rpt_call_cost_daily.total_cost_usd and rpt_call_kpis_daily.cost_usd; per account × UTC day of
-- placed calls rpt_destination_cost_anomalies.cost_usd against rpt_call_kpis_daily's placed legs
-- (usage does not split directions); per account rpt_call_kpis_daily_local.cost_usd over its local
-- days (a local day is not a UTC day; legs without a start time have no day on either side). The
-- missing-charge counts reconcile too. Days are text, so legs without a start time ('undated')
-- meet on both sides of a full join. Returns the (mart, account, day) rows that differ.
with usage as (
    select account, coalesce(usage_date::text, 'undated') as day,
           sum(usage_usd) as cost,
           sum(missing_charge_count) as missing
    from {{ ref('rpt_usage_daily') }}
    where product in ('calls', 'forward_fees')
    group by 1, 2
),
{#- Each cost mart's cost and missing charges per account × day (name, model, cost column, filter). #}
{%- for name, model, cost, filter in [
    ('cost_daily', 'rpt_call_cost_daily', 'total_cost_usd', 'true'),
    ('kpis', 'rpt_call_kpis_daily', 'cost_usd', 'true'),
    ('kpis_placed', 'rpt_call_kpis_daily', 'cost_usd', "direction = 'placed' and call_date is not null"),
    ('anomalies', 'rpt_destination_cost_anomalies', 'cost_usd', 'true'),
] %}
{{ name }} as (
    select account, coalesce(call_date::text, 'undated') as day, sum({{ cost }}) as cost,
           sum(missing_charge_count) as missing
    from {{ ref(model) }}
    where {{ filter }}
    group by 1, 2
),
{%- endfor %}
usage_by_account as (
    select account, 'every day' as day, sum(cost) as cost, sum(missing) as missing
    from usage where day <> 'undated' group by 1
),
kpis_local as (
    select account, 'every day' as day, sum(cost_usd) as cost, sum(missing_charge_count) as missing
    from {{ ref('rpt_call_kpis_daily_local') }}
    group by 1
),
pairs as (
    {%- for mart, side, reference in [
        ('rpt_call_cost_daily', 'cost_daily', 'usage'),
        ('rpt_call_kpis_daily', 'kpis', 'usage'),
        ('rpt_destination_cost_anomalies', 'anomalies', 'kpis_placed'),
        ('rpt_call_kpis_daily_local', 'kpis_local', 'usage_by_account'),
    ] %}
    select '{{ mart }}' as mart, account, day,
           m.cost as mart_cost, r.cost as usage_cost, m.missing as mart_missing, r.missing as usage_missing
    from {{ side }} as m
    full join {{ reference }} as r using (account, day)
    {{ 'union all' if not loop.last }}
    {%- endfor %}
)
select *
from pairs
where abs(coalesce(mart_cost, 0) - coalesce(usage_cost, 0)) >= 0.005
   or coalesce(mart_missing, 0) <> coalesce(usage_missing, 0)
