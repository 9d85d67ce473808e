-- One row per version of a phone number an account owned (dbt snapshot snap_numbers): the same
-- columns as dim_numbers, valid from valid_from until valid_to (UTC, timestamptz; null while
-- current). A version starts when a transform first found the number that way, so the first
-- version of a number starts at the first build that saw it (added_at says when it was bought).
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['account', 'number_id', 'valid_from']) }}", 'transaction': false}]) }}
with versions as (
    select
        {{ numbers_staged_columns() }},
        {{ snapshot_validity() }}
    from {{ ref('snap_numbers') }}
)
select
    {{ dim_numbers_columns() }},
    valid_from,
    valid_to,
    is_current
from versions
