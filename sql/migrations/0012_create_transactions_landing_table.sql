-- The billing ledger (GET /v1/billing/transactions, and each sub-account's
-- GET /v1/sub-organizations/{id}/billing/transactions read with the master's key), by UTC day of
-- `date`, merged by (account, ledger_account, id). `ledger_account` is the warehouse account whose
-- ledger a line is: the loading account's own name, or `<account>-sub-<id>` for a sub-account's
-- (`sub_organization_id` then holds the id; null for the account's own ledger). The platform sends
-- `amount` and `balance_after` as JSON numbers: they land exactly, from their source text.
CREATE TABLE platform.transactions (
  _account              text        NOT NULL,
  ledger_account        text        NOT NULL,
  sub_organization_id   bigint,
  id                    bigint      NOT NULL,
  date                  timestamptz NOT NULL,
  amount                numeric     NOT NULL,
  balance_after         numeric     NOT NULL,
  details               text,
  status                text        NOT NULL,
  type                  integer     NOT NULL,
  show_invoice          boolean     NOT NULL,
  _run_id               bigint      NOT NULL,
  _extracted_at         timestamptz NOT NULL,
  _extra                jsonb,
  PRIMARY KEY (_account, ledger_account, id)
);

CREATE INDEX transactions_by_date ON platform.transactions (_account, date);
