-- Macro grain_hash keys a grain whose columns may hold NULL or any text (campaigns, accounts,
-- trunk names): grains that differ must never hash alike. Returns each pair that does.
with pairs (case_name, left_hash, right_hash) as (
    values
        ('a dash inside a value',
         {{ grain_hash(["'master'", "'sub-x'"]) }}, {{ grain_hash(["'master-sub'", "'x'"]) }}),
        ('NULL against the empty text',
         {{ grain_hash(["null::text", "'x'"]) }}, {{ grain_hash(["''", "'x'"]) }}),
        ('NULL against the text null',
         {{ grain_hash(["null::text", "'x'"]) }}, {{ grain_hash(["'null'", "'x'"]) }}),
        ('a separator-like value',
         {{ grain_hash(["'a\",\"b'", "'c'"]) }}, {{ grain_hash(["'a'", "'b\",\"c'"]) }})
)

select case_name
from pairs
where left_hash = right_hash
