-- One row per SIP trunk of an account (as last listed): its label, how it authenticates, whether it
-- may place calls, and the settings that shape its calls (recording, machine detection,
-- transcription and its threshold). CDRs name a trunk by its login (`trunk_name`), so
-- (account, trunk_name) is how fct_calls joins here. The month-to-date totals are the platform's as
-- of `month_to_date_as_of` (the last read): for a month's usage per trunk, sum fct_calls instead.
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['account', 'trunk_name']) }}", 'transaction': false}]) }}
select
    {{ dim_trunks_settings_columns() }},
    month_to_date_start_date,
    month_to_date_talk_time_seconds,
    month_to_date_charge_usd,
    extracted_at                        as month_to_date_as_of
from {{ ref('stg_platform__sip_trunks') }}
