"""A long-lived MetricFlow for one warehouse's semantic layer (src/transform/metrics-session.ts).

`mf query` spends 4-7 s of every query importing MetricFlow, loading the dbt project and the
semantic manifest and connecting; this process does that once, then answers queries read from
stdin, one JSON object a line ({"metrics": [...], "groupBy": [...], "where": "...", "order": [...]}),
with one JSON line on stdout each: {"columns": [...], "rows": [[...], ...]} or {"error": "..."}.
Values are written as `mf query --csv` writes them (str(), "" for null), except numerics: MetricFlow's
engine turns every Decimal into a float (metricflow/data_table/mf_table.py), so a sum of money or a
ratio lost digits; this process asks the engine for the query's SQL and runs it on the dbt adapter's
connection itself, writing a numeric's exact digits (decision 0112). The first line it
writes is {"ready": true}, or {"error": "..."} when MetricFlow cannot start. It reads the project
and profiles folders from DBT_PROJECT_DIR and DBT_PROFILES_DIR, as `mf` does.
"""

import datetime
import json
import os
import sys


def _cell(value):
    """A value as MetricFlow's table writes it (naive datetimes, dates at midnight), numerics exact."""
    if value is None:
        return ""
    if isinstance(value, datetime.datetime):
        return str(value.replace(tzinfo=None))
    if isinstance(value, datetime.date):
        return str(datetime.datetime.combine(value, datetime.datetime.min.time()))
    return str(value)


def _run(adapter, statement):
    """Runs MetricFlow's SQL on the adapter's connection, as its own client does, without agate."""
    if statement.bind_parameter_set.param_dict:
        raise ValueError("MetricFlow asked for bind parameters, which the dbt adapter cannot pass")
    with adapter.connection_named("metricflow_server"):
        try:
            _, cursor = adapter.connections.add_query(statement.sql, auto_begin=True)
            columns = [column.name for column in cursor.description]
            rows = cursor.fetchall()
        finally:
            adapter.connections.rollback_if_open()
    return {"columns": columns, "rows": [[_cell(value) for value in row] for row in rows]}


def _answer(engine, adapter, request_type, line):
    ask = json.loads(line)
    where = ask.get("where")
    request = request_type.create(
        metric_names=ask["metrics"],
        group_by_names=ask.get("groupBy") or None,
        where_constraints=[where] if where else None,
        order_by_names=ask.get("order") or None,
    )
    return _run(adapter, engine.explain(mf_request=request).sql_statement)


def _one_line(error):
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return " ".join(lines[-3:]) or type(error).__name__


def main():
    out = sys.stdout
    # dbt and MetricFlow print while they load: keep stdout for the answers only.
    sys.stdout = sys.stderr
    try:
        from dbt_metricflow.cli.cli_configuration import CLIConfiguration
        from metricflow.engine.metricflow_engine import MetricFlowQueryRequest

        config = CLIConfiguration()
        config.setup(configure_file_logging=False)
        engine = config.mf
        adapter = config.dbt_artifacts.adapter
    except Exception as error:  # noqa: BLE001 - reported to the caller as one line
        out.write(json.dumps({"error": _one_line(error)}) + "\n")
        out.flush()
        return 1
    out.write(json.dumps({"ready": True, "pid": os.getpid()}) + "\n")
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = _answer(engine, adapter, MetricFlowQueryRequest, line)
        except Exception as error:  # noqa: BLE001 - a refused query is an answer, not the end
            reply = {"error": _one_line(error)}
        out.write(json.dumps(reply) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
