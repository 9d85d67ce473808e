{#-
    The one definition of a missing charge (issue 16): the platform sent no charge (null) for a call
    leg it should have billed — answered, with a per-minute rate and a duration > 0. A failed or
    unanswered leg the platform bills 0 or null by design is not missing, nor is an answered leg of
    0 seconds or without a rate (nothing to bill). Always true or false, never null, so a count of
    missing legs never drops a leg whose disposition or duration is unknown.
-#}
{% macro charge_is_missing(charge, disposition, per_minute, duration_seconds) -%}
    coalesce(
        {{ charge }} is null
        and {{ disposition }} = 'answered'
        and {{ per_minute }} is not null
        and {{ duration_seconds }} > 0,
        false
    )
{%- endmacro %}

{#-
    What a missing charge would have been, USD: the leg's per-minute rate × its billed minutes (the
    platform rounds every started minute up), the way the platform computes a charge. 0 on a leg
    whose charge is not missing, so sums over legs are the estimate of what the missing charges
    hide; an estimate, never added to a cost column.
-#}
{% macro estimated_missing_charge(charge, disposition, per_minute, duration_seconds) -%}
    case
        when {{ charge_is_missing(charge, disposition, per_minute, duration_seconds) }}
            then {{ per_minute }}::numeric * ceil({{ duration_seconds }} / 60.0)
        else 0
    end
{%- endmacro %}
