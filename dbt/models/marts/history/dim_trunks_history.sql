-- One row per version of an account's SIP trunk (dbt snapshot snap_trunks): the settings of
-- dim_trunks (not its month-to-date totals, which change on every read), valid from valid_from
-- until valid_to (UTC, timestamptz; null while current). A rename is a new version.
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['account', 'trunk_id', 'valid_from']) }}", 'transaction': false}]) }}
with versions as (
    select
        {{ trunks_staged_columns() }},
        {{ snapshot_validity() }}
    from {{ ref('snap_trunks') }}
)
select
    {{ dim_trunks_settings_columns() }},
    valid_from,
    valid_to,
    is_current
from versions
