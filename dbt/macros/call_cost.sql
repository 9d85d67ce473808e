{#-
    The one definition of a call leg's cost (issue 35): charge + forward fee, each part counted where
    it is known. A charge is known unless it is missing (macro charge_is_missing: a leg the platform
    bills nothing for by design has a known charge of 0); a forward fee is known when sent (a leg
    that was not forwarded has none). NULL only when neither part is known (a missing charge on a
    leg without a fee); a known forward fee is never dropped because the charge is missing: that
    leg's cost is partial (macro call_cost_is_partial) and its charge counted as missing.
-#}
{% macro call_cost(charge, forward_fee, charge_missing) -%}
    case
        when {{ charge_missing }} and {{ forward_fee }} is null then null
        else coalesce({{ charge }}, 0) + coalesce({{ forward_fee }}, 0)
    end
{%- endmacro %}

{#- A leg whose cost holds its forward fee only: the charge is missing, the fee was sent. -#}
{% macro call_cost_is_partial(forward_fee, charge_missing) -%}
    coalesce({{ charge_missing }} and {{ forward_fee }} is not null, false)
{%- endmacro %}

{#-
    The cost measures of every daily call report, over legs of fct_calls (rpt_call_cost_daily,
    rpt_call_kpis_daily, rpt_call_kpis_daily_local): the sums of the known parts, so
    `cost` = charge_usd + forward_fee_usd on every row and a day's cost reconciles with
    rpt_usage_daily's calls + forward_fees products to the cent (singular test
    assert_cost_marts_reconcile_to_usage). The missing part is counted beside it, never summed as 0
    silently: missing_charge_count legs, estimated at estimated_missing_charge_usd, of which
    partial_cost_legs still carry a forward fee. `cost` names the total's column (rpt_call_cost_daily
    keeps its historical total_cost_usd, a glossary synonym).
-#}
{% macro call_cost_measures(cost='cost_usd') -%}
    coalesce(sum(charge_usd), 0)                                                as charge_usd,
    coalesce(sum(forward_fee_usd), 0)                                           as forward_fee_usd,
    coalesce(sum(total_cost_usd), 0)                                            as {{ cost }},
    count(*) filter (where is_charge_missing)                                   as missing_charge_count,
    count(*) filter (where is_cost_partial)                                     as partial_cost_legs,
    coalesce(sum(estimated_missing_charge_usd), 0)                              as estimated_missing_charge_usd
{%- endmacro %}
