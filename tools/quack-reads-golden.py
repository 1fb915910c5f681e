"""Stock answers to DuckLake's metadata read templates, for catalog/sql/metadata/ (QR1's share of issue 11).

Builds each catalog state of tools/ducklake-golden.py's scenarios with real DuckDB 1.5.5 + DuckLake 1.5.5
(the same SQL, on a DuckDB-file metadata store, as a stock Quack server holds it), then opens the metadata
file directly — as the Quack server's own connection sees it, catalog `meta` — and runs every metadata
read template DuckLake sends over Quack (the statement texts of
/work/shared/quack-capture/captures/templates-*.json) with literals for that state: every snapshot, every
table and schema id. Records column names, DuckDB types and rows. Plus the ATTACH probes on an empty
database (`scenario: "empty"`: no lake yet). Values DuckLake randomises are normalised as the ducklake
goldens normalise them (uuids, times, byte sizes, created_by, data_path).

    python3 tools/quack-reads-golden.py            # rewrite test/fixtures/quack/metadata-reads.json
    python3 tools/quack-reads-golden.py --check    # exit 1 if the committed fixture differs (CI)
"""
import json
import datetime
import importlib.util
import os
import re
import sys
import tempfile
import uuid

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "test", "fixtures", "quack", "metadata-reads.json")
_spec = importlib.util.spec_from_file_location("ducklake_golden", os.path.join(HERE, "ducklake-golden.py"))
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)

# name -> (SQL with {placeholders}, whether stock's ORDER BY fixes the row order). Texts as DuckLake sends them.
TEMPLATES = {
    "attach.schemata": (
        "SELECT catalog_name, schema_name FROM information_schema.schemata WHERE catalog_name NOT IN ('system', 'temp') ORDER BY ALL",
        True,
    ),
    "attach.tables_and_views": (
        "SELECT schema_name, sql, 'table' FROM duckdb_tables() UNION ALL SELECT schema_name, view_name, 'view' FROM duckdb_views()",
        True,
    ),
    "attach.secrets": ("FROM duckdb_secrets()", False),
    "attach.table_exists": (
        "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = '{name}' AND table_schema = 'main'",
        False,
    ),
    "attach.functions_probe": (
        "SELECT 1 FROM duckdb_functions() WHERE function_name = 'ducklake_commit' LIMIT 1",
        False,
    ),
    "snapshot.latest": (
        'SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM "main".ducklake_snapshot WHERE snapshot_id = (SELECT MAX(snapshot_id) FROM "main".ducklake_snapshot)',
        False,
    ),
    "snapshot.by_id": (
        'SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM "main".ducklake_snapshot WHERE snapshot_id = {s}',
        False,
    ),
    "snapshot.list": (
        'SELECT snapshot_id, snapshot_time, schema_version, next_file_id, changes_made, author, commit_message, commit_extra_info FROM "main".ducklake_snapshot LEFT JOIN "main".ducklake_snapshot_changes USING (snapshot_id) ORDER BY snapshot_id',
        True,
    ),
    "snapshot.older_than": (
        'SELECT snapshot_id, snapshot_time, schema_version, next_file_id, changes_made, author, commit_message, commit_extra_info FROM "main".ducklake_snapshot LEFT JOIN "main".ducklake_snapshot_changes USING (snapshot_id) WHERE snapshot_id != (SELECT MAX(snapshot_id) FROM "main".ducklake_snapshot) AND snapshot_time < \'{time}\' ORDER BY snapshot_id',
        True,
    ),
    "snapshot.at_time": (
        'SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM "main".ducklake_snapshot WHERE snapshot_id = ( SELECT snapshot_id FROM "main".ducklake_snapshot WHERE snapshot_time::TIMESTAMPTZ <= \'{time}\' ORDER BY snapshot_time::TIMESTAMPTZ DESC LIMIT 1 )',
        False,
    ),
    "snapshot.distinct_schema_versions": ('SELECT DISTINCT schema_version FROM "main".ducklake_snapshot', False),
    "catalog.schemas": (
        'SELECT schema_id, schema_uuid::VARCHAR, schema_name, path, path_is_relative FROM "main".ducklake_schema WHERE {s} >= begin_snapshot AND ({s} < end_snapshot OR end_snapshot IS NULL)',
        False,
    ),
    "catalog.tables_and_columns": (
        "SELECT schema_id, tbl.table_id, table_uuid::VARCHAR, table_name, ( SELECT LIST({{'key': key, 'value': value}}) FROM \"main\".ducklake_tag tag WHERE object_id=table_id AND {s} >= tag.begin_snapshot AND ({s} < tag.end_snapshot OR tag.end_snapshot IS NULL) ) AS tag, ( SELECT LIST({{'name': table_name, 'schema_version': schema_version}}) FROM \"main\".ducklake_inlined_data_tables inlined_data_tables WHERE inlined_data_tables.table_id = tbl.table_id ) AS inlined_data_tables, path, path_is_relative, col.column_id, column_name, column_type, initial_default, default_value, nulls_allowed, parent_column, ( SELECT LIST({{'key': key, 'value': value}}) FROM \"main\".ducklake_column_tag col_tag WHERE col_tag.table_id=tbl.table_id AND col_tag.column_id=col.column_id AND {s} >= col_tag.begin_snapshot AND ({s} < col_tag.end_snapshot OR col_tag.end_snapshot IS NULL) ) AS column_tags, default_value_type FROM \"main\".ducklake_table tbl LEFT JOIN \"main\".ducklake_column col USING (table_id) WHERE {s} >= tbl.begin_snapshot AND ({s} < tbl.end_snapshot OR tbl.end_snapshot IS NULL) AND (({s} >= col.begin_snapshot AND ({s} < col.end_snapshot OR col.end_snapshot IS NULL)) OR column_id IS NULL) ORDER BY table_id, parent_column NULLS FIRST, column_order",
        True,
    ),
    "catalog.views": (
        "SELECT view_id, view_uuid, schema_id, view_name, dialect, sql, column_aliases, ( SELECT LIST({{'key': key, 'value': value}}) FROM \"main\".ducklake_tag tag WHERE object_id=view_id AND {s} >= tag.begin_snapshot AND ({s} < tag.end_snapshot OR tag.end_snapshot IS NULL) ) AS tag FROM \"main\".ducklake_view view WHERE {s} >= begin_snapshot AND ({s} < view.end_snapshot OR view.end_snapshot IS NULL)",
        False,
    ),
    "catalog.macros": (
        "SELECT schema_id, ducklake_macro.macro_id, macro_name, ( SELECT LIST({{'dialect': dialect, 'sql': sql, 'type': type, 'params': ( SELECT LIST({{'parameter_name': parameter_name, 'parameter_type': parameter_type, 'default_value': default_value, 'default_value_type': default_value_type}}) FROM \"main\".ducklake_macro_parameters WHERE ducklake_macro_impl.macro_id = ducklake_macro_parameters.macro_id AND ducklake_macro_impl.impl_id = ducklake_macro_parameters.impl_id ) }}) FROM \"main\".ducklake_macro_impl WHERE ducklake_macro.macro_id = ducklake_macro_impl.macro_id ) AS impl FROM \"main\".ducklake_macro WHERE {s} >= ducklake_macro.begin_snapshot AND ({s} < ducklake_macro.end_snapshot OR ducklake_macro.end_snapshot IS NULL)",
        False,
    ),
    "catalog.partitions": (
        'SELECT partition_id, part.table_id, partition_key_index, column_id, transform FROM "main".ducklake_partition_info part JOIN "main".ducklake_partition_column part_col USING (partition_id) WHERE {s} >= part.begin_snapshot AND ({s} < part.end_snapshot OR part.end_snapshot IS NULL) ORDER BY part.table_id, partition_id, partition_key_index',
        True,
    ),
    "catalog.sorts": (
        'SELECT sort.sort_id, sort.table_id, sort_expr.sort_key_index, sort_expr.expression, sort_expr.dialect, sort_expr.sort_direction, sort_expr.null_order FROM "main".ducklake_sort_info sort JOIN "main".ducklake_sort_expression sort_expr USING (sort_id) WHERE {s} >= sort.begin_snapshot AND ({s} < sort.end_snapshot OR sort.end_snapshot IS NULL) ORDER BY sort.table_id, sort.sort_id, sort_expr.sort_key_index',
        True,
    ),
    "schema.path": ('SELECT path, path_is_relative FROM "main".ducklake_schema WHERE schema_id = {schema}', False),
    "table.paths": (
        'SELECT s.path AS s_path, s.path_is_relative AS s_path_is_relative, t.path AS t_path, t.path_is_relative AS t_path_is_relative FROM "main".ducklake_schema s JOIN "main".ducklake_table t USING (schema_id) WHERE table_id = {table}',
        False,
    ),
    "table.max_column_id": ('SELECT MAX(column_id) FROM "main".ducklake_column WHERE table_id={table}', False),
    "stats.table": (
        'SELECT table_id, column_id, record_count, next_row_id, file_size_bytes, contains_null, contains_nan, min_value, max_value, extra_stats FROM "main".ducklake_table_stats LEFT JOIN "main".ducklake_table_column_stats USING (table_id) WHERE table_id = {table} AND record_count IS NOT NULL AND file_size_bytes IS NOT NULL ORDER BY table_id',
        False,
    ),
    "stats.table_ids": ('SELECT DISTINCT table_id FROM "main".ducklake_table_stats', False),
    "stats.snapshot_and_all_tables": (
        "SELECT snapshot_id, schema_version, next_catalog_id, next_file_id, COALESCE(( SELECT STRING_AGG(changes_made, ',') FROM \"main\".ducklake_snapshot_changes c WHERE c.snapshot_id > {s} ),'') AS changes, NULL AS table_id, NULL AS column_id, NULL AS record_count, NULL AS next_row_id, NULL AS file_size_bytes, NULL AS contains_null, NULL AS contains_nan, NULL AS min_value, NULL AS max_value, NULL AS extra_stats FROM \"main\".ducklake_snapshot WHERE snapshot_id = ( SELECT MAX(snapshot_id) FROM \"main\".ducklake_snapshot) UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, table_id, column_id, record_count, next_row_id, file_size_bytes, contains_null, contains_nan, min_value, max_value, extra_stats FROM \"main\".ducklake_table_stats LEFT JOIN \"main\".ducklake_table_column_stats USING (table_id) WHERE record_count IS NOT NULL AND file_size_bytes IS NOT NULL ORDER BY table_id NULLS FIRST",
        False,
    ),
    "options.metadata": ('SELECT key, value, scope, scope_id FROM "main".ducklake_metadata', False),
    "options.global_count": (
        'SELECT COUNT(*) FROM "main".ducklake_metadata WHERE key = \'{key}\' AND scope IS NULL',
        False,
    ),
    "inlined_tables.newest": (
        'SELECT table_name, schema_version FROM "main".ducklake_inlined_data_tables WHERE table_id = {table} AND schema_version = ( SELECT MAX(schema_version) FROM "main".ducklake_inlined_data_tables WHERE table_id = {table})',
        False,
    ),
    "inlined_tables.superseded": (
        'SELECT idt.table_id, idt.schema_version, idt.table_name FROM "main".ducklake_inlined_data_tables idt WHERE idt.schema_version < ( SELECT MAX(idt2.schema_version) FROM "main".ducklake_inlined_data_tables idt2 WHERE idt2.table_id = idt.table_id )',
        False,
    ),
    "schema_versions.begin": (
        'SELECT begin_snapshot FROM "main".ducklake_schema_versions WHERE table_id = {table} AND schema_version = {version}',
        False,
    ),
    "maintenance.expired_tables": (
        'SELECT table_id FROM "main".ducklake_table t WHERE end_snapshot IS NOT NULL AND NOT EXISTS ( SELECT snapshot_id FROM "main".ducklake_snapshot WHERE snapshot_id >= begin_snapshot AND snapshot_id < end_snapshot ) AND NOT EXISTS ( SELECT 1 FROM "main".ducklake_table t2 WHERE t2.table_id = t.table_id AND (t2.end_snapshot IS NULL OR EXISTS (SELECT snapshot_id FROM "main".ducklake_snapshot WHERE snapshot_id >= begin_snapshot AND snapshot_id < t2.end_snapshot)) )',
        False,
    ),
    "maintenance.files_scheduled_for_deletion": (
        'SELECT data_file_id, path, path_is_relative, schedule_start FROM "main".ducklake_files_scheduled_for_deletion',
        False,
    ),
}
ATTACH = [n for n in TEMPLATES if n.startswith("attach.")]

UUID_IN = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def norm(column, value):
    """JSON form of a DuckDB value, with DuckLake's random parts masked (as tools/ducklake-golden.py does)."""
    if value is None:
        return None
    if isinstance(value, datetime.datetime):
        return "<time>"
    if isinstance(value, uuid.UUID):
        return "<uuid>"
    if isinstance(value, list):
        return [norm(column, v) for v in value]
    if isinstance(value, dict):
        return {k: norm(k, v) for k, v in value.items()}
    if isinstance(value, str):
        if value.startswith("DuckDB "):
            return "<created_by>"
        if value.startswith(tempfile.gettempdir()):
            return "<data_path>"
        if column == "path":
            return UUID_IN.sub("<uuid>", value)
        return "<uuid>" if UUID_IN.fullmatch(value) else value
    if column == "file_size_bytes" and value != 0:
        return "<bytes>"
    return value


def params(con, name):
    """Literal sets for a template in this state: every snapshot, table, schema, (table, schema version)."""
    if name == "attach.table_exists":
        return [{"name": "ducklake_metadata"}, {"name": "ducklake_nothing"}]
    if name.startswith("attach."):
        return [{}]
    q = lambda sql: [r[0] for r in con.execute(sql).fetchall()]
    snaps = q("SELECT snapshot_id FROM ducklake_snapshot ORDER BY 1")
    tables = q("SELECT DISTINCT table_id FROM ducklake_table ORDER BY 1")
    if name in ("snapshot.by_id",):
        return [{"s": s} for s in snaps + [snaps[-1] + 1]]
    if name.startswith("catalog.") or name == "stats.snapshot_and_all_tables":
        return [{"s": s} for s in snaps]
    if name == "snapshot.at_time":
        return [{"time": "2000-01-01T00:00:00+00"}, {"time": "2100-01-01T00:00:00.5+00"}]
    if name == "options.global_count":
        return [{"key": "data_path"}, {"key": "data_inlining_row_limit"}]
    if name == "snapshot.older_than":
        return [{"time": "2000-01-01T00:00:00+00"}, {"time": "2100-01-01T00:00:00.5+00"}]
    if name == "schema.path":
        return [{"schema": s} for s in q("SELECT DISTINCT schema_id FROM ducklake_schema ORDER BY 1")]
    if name in ("table.paths", "table.max_column_id", "stats.table", "inlined_tables.newest"):
        return [{"table": t} for t in tables]
    if name == "schema_versions.begin":
        pairs = con.execute("SELECT DISTINCT table_id, schema_version FROM ducklake_schema_versions ORDER BY ALL").fetchall()
        return [{"table": t, "version": v} for t, v in pairs]
    return [{}]


def answer(con, sql, ordered):
    cur = con.execute(sql)
    columns = [[d[0], str(d[1])] for d in cur.description]
    rows = [[norm(c[0], v) for c, v in zip(columns, r)] for r in cur.fetchall()]
    return {"columns": columns, "rows": rows, "ordered": ordered}


def run_templates(con, scenario, names):
    out = []
    for name in names:
        sql, ordered = TEMPLATES[name]
        for p in params(con, name):
            out.append({"scenario": scenario, "template": name, "params": p, **answer(con, sql.format(**p), ordered)})
    return out


def server_connection(path):
    """The metadata file as a stock Quack server with `ducklake` loaded sees it: the server ducklake-edge
    answers as, since it lists `ducklake_commit` (docs/decisions/0260-staged-commit.md)."""
    con = duckdb.connect(path, config={"allow_unsigned_extensions": "true"})
    con.execute(f"LOAD '{golden.EXT}'")
    return con


def main():
    check = "--check" in sys.argv
    entries = []
    with tempfile.TemporaryDirectory() as tmp:
        con = server_connection(f"{tmp}/meta.duckdb")
        entries += run_templates(con, "empty", ATTACH)
        con.close()
    for scenario, statements in golden.SCENARIOS.items():
        with tempfile.TemporaryDirectory() as tmp:
            con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
            con.execute(f"LOAD '{golden.EXT}'")
            con.execute(f"ATTACH 'ducklake:{tmp}/meta.duckdb' AS lake (DATA_PATH '{tmp}/data/')")
            for sql in statements:
                con.execute(sql)
            con.execute("DETACH lake")
            con.close()
            # The metadata file opened as the Quack server's own connection sees it: catalog `meta`.
            con = server_connection(f"{tmp}/meta.duckdb")
            entries += run_templates(con, scenario, TEMPLATES)
            con.close()
    # Rows of a statement without ORDER BY come back in any order (DISTINCT hashes): keep them in one
    # canonical order so the fixture, and so `--check`, is deterministic; the test compares them as a multiset.
    for e in entries:
        if e.get("ordered") is False and isinstance(e.get("rows"), list):
            e["rows"] = sorted(e["rows"], key=lambda r: json.dumps(r, sort_keys=True, default=str))
    # Each template's text once (Python format placeholders: `{s}` a snapshot, `{{` a literal brace).
    templates = {name: sql for name, (sql, _) in TEMPLATES.items()}
    text = golden.to_text({"duckdb": duckdb.__version__, "templates": templates, "entries": entries})
    if check:
        old = open(OUT).read() if os.path.exists(OUT) else None
        if old != text:
            print(f"{OUT} differs from stock DuckDB; rerun tools/quack-reads-golden.py")
            sys.exit(1)
        print(f"{len(entries)} metadata read answers match stock DuckDB {duckdb.__version__}")
        return
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write(text)
    print(f"wrote {OUT} ({len(entries)} answers)")


if __name__ == "__main__":
    main()
