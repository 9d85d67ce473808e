{#- The products the warehouse's usage data prices (rpt_usage_daily plus the number fees), in report
    order: the ones an invoice's usage, ledger and invoiced amounts are reconciled on. Ledger-only
    products (payments, 10DLC, ...) are not among them. -#}
{% macro usage_products() -%}
    {{ return(['calls', 'forward_fees', 'transcriptions', 'validations', 'messages', 'number_fees']) }}
{%- endmacro %}
