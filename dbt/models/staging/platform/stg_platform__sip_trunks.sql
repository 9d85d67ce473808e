-- One row per SIP trunk of an account (the set the last run listed, as GET /v1/trunks summarises
-- it): renamed and cast. `talk_time` and `charge` are the trunk's outbound totals for the current
-- month so far as of the read (reset at the start of each month): a month-to-date figure, not a
-- lifetime one.
select
    {{ trunks_staged_columns() }}
from {{ source('platform', 'sip_trunks') }}
