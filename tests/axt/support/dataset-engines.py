"""Reads an axt Parquet dataset back with real engines and checks it.

Usage: dataset-engines.py DATASET STATS_JSON QUERIES_MD [--spark]

* DuckDB always; Spark (local mode) with --spark.
* The totals of the dataset are checked against `axt stats --json` over the same
  transcripts: completed runs, events, tokens by kind and cost (by the documented "Total
  spend" query), tool calls and failures per tool, content blocks by type (when the dataset
  has content), reader problems by kind.
* Every SQL block under "## Example queries" of QUERIES_MD (docs/parquet.md) is run; with
  --spark, each must give Spark the same rows as DuckDB.

Prints one JSON object: {"engines", "rows" (per table), "queries" (title -> rows)}; exits 1
with the first mismatch on stderr. Nothing here knows what the dataset should hold beyond
what `axt stats` says: the Rust test around it asserts the rest.
"""

import json
import math
import os
import re
import sys

TABLES = ["runs", "steps", "llm_calls", "tool_calls", "content", "diagnostics"]


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def queries(markdown):
    """(title, sql) for every ```sql block after '## Example queries', titled by its ###."""
    text = open(markdown, encoding="utf-8").read()
    section = text.split("## Example queries", 1)[1].split("\n## ", 1)[0]
    found = []
    title = None
    for part in re.split(r"(^### [^\n]*$|^```sql\n.*?^```$)", section, flags=re.M | re.S):
        if part.startswith("### "):
            title = part[4:].strip()
        elif part.startswith("```sql"):
            found.append((title, part[len("```sql\n") : -3].strip()))
    if not found:
        fail(f"{markdown}: no query under '## Example queries'")
    return found


def plain(value):
    """A value both engines can be compared on."""
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 6)
    try:  # Decimal
        number = float(value)
        return int(number) if number == int(number) and "." not in str(value) else round(number, 6)
    except (TypeError, ValueError):
        return str(value)


def rows_of(rows):
    return [[plain(v) for v in row] for row in rows]


class DuckDB:
    name = "duckdb"

    def __init__(self, dataset, tables):
        import duckdb

        self.con = duckdb.connect()
        for table in tables:
            glob = os.path.join(dataset, table, "**", "*.parquet")
            self.con.execute(
                f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{glob}', hive_partitioning = true)"
            )

    def rows(self, sql):
        return rows_of(self.con.execute(sql).fetchall())


class Spark:
    name = "spark"

    def __init__(self, dataset, tables):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        from pyspark.sql import SparkSession

        self.spark = (
            SparkSession.builder.master("local[2]")
            .appName("axt-dataset-check")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            # Loopback only: the driver binds nothing another machine could reach.
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.driver.memory", "1g")
            .getOrCreate()
        )
        self.spark.sparkContext.setLogLevel("ERROR")
        for table in tables:
            self.spark.read.parquet(os.path.join(dataset, table)).createOrReplaceTempView(table)

    def rows(self, sql):
        return rows_of([tuple(row) for row in self.spark.sql(sql).collect()])


def one(engine, sql):
    return engine.rows(sql)[0]


def check_stats(engine, stats, tables, spend_sql):
    """The dataset's totals against `axt stats`, in this engine."""
    total = stats["total"]

    def expect(what, got, want):
        if isinstance(want, float) or isinstance(got, float):
            same = abs((got or 0.0) - want) <= 1e-6 * max(1.0, abs(want))
        else:
            same = got == want
        if not same:
            fail(f"{engine.name}: {what}: dataset {got!r}, axt stats {want!r}")

    runs, events = one(
        engine,
        "SELECT SUM(CASE WHEN status <> 'incomplete' THEN 1 ELSE 0 END), SUM(n_events) FROM runs",
    )
    expect("completed runs", runs, total["runs"])
    expect("events", events, total["events"])
    # The documented query, each session's running total once, against axt stats' rule.
    _, inp, out, cread, cwrite, reason, cost = one(engine, spend_sql)
    tokens = total["tokens"]
    expect("input tokens", inp, tokens["input"])
    expect("output tokens", out, tokens["output"])
    expect("cache-read tokens", cread, tokens["cache_read"])
    expect("cache-write tokens", cwrite, tokens["cache_write"])
    expect("reasoning tokens", reason, tokens["reasoning"])
    # The dataset's cost is the providers' own (`cost_usd_reported`): axt stats' reported sum.
    expect("cost", float(cost or 0.0), float(total["cost"]["reported_usd"]))
    tools = {
        name: [calls, failures]
        for name, calls, failures in engine.rows(
            "SELECT name, SUM(CASE WHEN seq IS NOT NULL THEN 1 ELSE 0 END), "
            "SUM(CASE WHEN status = 'error' THEN 1 ELSE 0 END) FROM tool_calls GROUP BY name"
        )
    } if "tool_calls" in tables else {}
    want = {name: [t["calls"], t["failures"]] for name, t in total["tools"].items()}
    expect("tool calls and failures by tool", tools, want)
    problems = {
        kind: n
        for kind, n in engine.rows(
            "SELECT kind, COUNT(*) FROM diagnostics WHERE source = 'read' GROUP BY kind"
        )
    } if "diagnostics" in tables else {}
    expect("reader problems by kind", problems, total["problems"])
    if "content" in tables:
        blocks = {
            kind: n
            for kind, n in engine.rows(
                "SELECT block_type, COUNT(*) FROM content "
                "WHERE event_type IN ('message.user', 'message.assistant') GROUP BY block_type"
            )
        }
        expect("content blocks by type", blocks, total["block_types"])


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 3:
        fail(__doc__)
    dataset, stats_path, markdown = args
    stats = json.load(open(stats_path, encoding="utf-8"))
    tables = [t for t in TABLES if os.path.isdir(os.path.join(dataset, t))]
    engines = [DuckDB(dataset, tables)]
    if "--spark" in sys.argv:
        engines.append(Spark(dataset, tables))
    summary = {"engines": [e.name for e in engines], "rows": {}, "queries": {}}
    for table in tables:
        counts = [one(e, f"SELECT COUNT(*) FROM {table}")[0] for e in engines]
        if len(set(counts)) != 1:
            fail(f"{table}: row counts differ between engines: {counts}")
        summary["rows"][table] = counts[0]
    documented = queries(markdown)
    spend_sql = dict(documented)["Total spend"]
    for engine in engines:
        check_stats(engine, stats, tables, spend_sql)
    for title, sql in documented:
        results = [engine.rows(sql) for engine in engines]
        for engine, rows in zip(engines[1:], results[1:]):
            if rows != results[0]:
                fail(f"{title}: {engine.name} gives {rows}, duckdb {results[0]}")
        summary["queries"][title] = results[0]
    print(json.dumps(summary, sort_keys=True))


if __name__ == "__main__":
    main()
