-- One row per phone number an account owns (as last listed): where it is, what it costs, and its
-- recording, transcription and forwarding settings. fct_calls.account_number joins here.
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['account', 'phone_number']) }}", 'transaction': false}]) }}
select
    {{ dim_numbers_columns() }},
    extracted_at
from {{ ref('stg_platform__numbers') }}
