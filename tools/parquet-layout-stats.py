"""Captures the ducklake_file_column_stats rows stock DuckLake 1.5.5 registers for files it writes itself.

One case per column type: a table with one column, one INSERT of the case's rows with
DATA_INLINING_ROW_LIMIT 0 (so DuckLake writes a Parquet file), then the stats rows with the column tree.
Writes test/fixtures/parquet-layout-stats.json, which test/catalog/parquet-layout.test.ts compares
catalog/parquet-layout.ts against (the same rows as stored values, written by parquet/).
Run: python3 tools/parquet-layout-stats.py [--check]
"""

import json
import os
import sys
import tempfile

import duckdb
import duckdb_extension_ducklake

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "test", "fixtures", "parquet-layout-stats.json")
EXT = os.path.join(
    os.path.dirname(duckdb_extension_ducklake.__file__),
    "extensions",
    f"v{duckdb.__version__}",
    "ducklake.duckdb_extension",
)

# (name, DuckDB column type, SQL literals, the same values in the catalog's stored form)
CASES = [
    ("int8", "TINYINT", ["-128", "0", "127", "NULL"], [-128, 0, 127, None]),
    ("int16", "SMALLINT", ["-32768", "5", "NULL"], [-32768, 5, None]),
    ("int32", "INTEGER", ["-7", "2147483647"], [-7, 2147483647]),
    (
        "int64",
        "BIGINT",
        ["-9223372036854775808", "9223372036854775807", "NULL"],
        ["-9223372036854775808", "9223372036854775807", None],
    ),
    ("uint8", "UTINYINT", ["0", "255"], [0, 255]),
    ("uint16", "USMALLINT", ["1", "65535"], [1, 65535]),
    ("uint32", "UINTEGER", ["3", "4294967295"], [3, 4294967295]),
    ("uint64", "UBIGINT", ["0", "18446744073709551615"], [0, "18446744073709551615"]),
    ("int128", "HUGEINT", ["-5", "12345", "NULL"], [-5, 12345, None]),
    ("float32", "FLOAT", ["-1.5", "0.1", "NULL", "'nan'"], [-1.5, 0.10000000149011612, None, "NaN"]),
    ("float32_plain", "FLOAT", ["2", "3.25"], [2, 3.25]),
    ("float64", "DOUBLE", ["1e300", "-0.1", "NULL"], [1e300, -0.1, None]),
    ("float64_inf", "DOUBLE", ["'inf'", "1.0", "'-inf'"], ["Infinity", 1, "-Infinity"]),
    ("float64_nan", "DOUBLE", ["'nan'", "7.5"], ["NaN", 7.5]),
    ("decimal_4_3", "DECIMAL(4,3)", ["-1.5", "2.125", "NULL"], ["-1.500", "2.125", None]),
    ("decimal_18_2", "DECIMAL(18,2)", ["-12345678901.25", "0"], ["-12345678901.25", "0.00"]),
    (
        "decimal_38_5",
        "DECIMAL(38,5)",
        ["123456789012345678901234567890.12345", "-1"],
        ["123456789012345678901234567890.12345", "-1.00000"],
    ),
    (
        "varchar",
        "VARCHAR",
        ["'b'", "'a long string that is longer than thirty-two bytes, surely'", "'é✓'", "NULL", "''"],
        ["b", "a long string that is longer than thirty-two bytes, surely", "é✓", None, ""],
    ),
    ("json", "JSON", ["'{\"a\": 1}'", "'[1,2]'"], ['{"a": 1}', "[1,2]"]),
    ("blob", "BLOB", ["'\\x00\\xFF'::BLOB", "'ab'::BLOB"], ["\\x00\\xFF", "ab"]),
    (
        "uuid",
        "UUID",
        ["'0f8fad5b-d9cb-469f-a165-70867728950e'", "'7c9e6679-7425-40de-944b-e07fc1f90ae7'"],
        ["0f8fad5b-d9cb-469f-a165-70867728950e", "7c9e6679-7425-40de-944b-e07fc1f90ae7"],
    ),
    ("boolean", "BOOLEAN", ["true", "false", "NULL"], [True, False, None]),
    ("date", "DATE", ["'2025-12-01'", "'1969-07-20'"], ["2025-12-01", "1969-07-20"]),
    ("time", "TIME", ["'00:00:01'", "'23:59:59.999999'"], ["00:00:01", "23:59:59.999999"]),
    (
        "timestamp",
        "TIMESTAMP",
        ["'2025-12-01 08:30:38.123456'", "'1970-01-01 00:00:00'"],
        ["2025-12-01 08:30:38.123456", "1970-01-01 00:00:00"],
    ),
    (
        "timestamp_ms",
        "TIMESTAMP_MS",
        ["'2025-12-01 08:30:38.123'", "'2000-01-01 00:00:00'"],
        ["2025-12-01 08:30:38.123", "2000-01-01 00:00:00"],
    ),
    (
        "timestamp_ns",
        "TIMESTAMP_NS",
        ["'2025-12-01 08:30:38.123456789'", "'2000-01-01 00:00:00'"],
        ["2025-12-01 08:30:38.123456789", "2000-01-01 00:00:00"],
    ),
    (
        "timestamp_s",
        "TIMESTAMP_S",
        ["'2025-12-01 08:30:38'", "'2000-01-01 00:00:00'"],
        ["2025-12-01 08:30:38", "2000-01-01 00:00:00"],
    ),
    (
        "timestamptz",
        "TIMESTAMPTZ",
        ["'2025-12-01 08:30:38.5+00'", "'2000-01-01 00:00:00+00'"],
        ["2025-12-01 08:30:38.5+00", "2000-01-01 00:00:00+00"],
    ),
    ("list", "INTEGER[]", ["[1, NULL, 3]", "[]", "NULL", "[-4]"], [[1, None, 3], [], None, [-4]]),
    (
        "struct",
        "STRUCT(a INTEGER, b VARCHAR)",
        ["{'a': 1, 'b': 'x'}", "NULL", "{'a': NULL, 'b': 'y'}"],
        [{"a": 1, "b": "x"}, None, {"a": None, "b": "y"}],
    ),
    (
        "map",
        "MAP(VARCHAR, INTEGER)",
        ["MAP {'k': 1, 'j': NULL}", "MAP {}", "NULL"],
        [[{"key": "k", "value": 1}, {"key": "j", "value": None}], [], None],
    ),
    (
        "nested",
        "STRUCT(l INTEGER[], m MAP(INTEGER, VARCHAR[]))",
        ["{'l': [1, 2], 'm': MAP {5: ['a', NULL]}}", "{'l': NULL, 'm': NULL}"],
        [{"l": [1, 2], "m": [{"key": 5, "value": ["a", None]}]}, {"l": None, "m": None}],
    ),
]


def capture():
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        con = duckdb.connect(config={"allow_unsigned_extensions": "true", "autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
        con.execute(f"LOAD '{EXT}'")
        con.execute(f"ATTACH 'ducklake:{tmp}/cat.ducklake' AS lake (DATA_PATH '{tmp}/data', DATA_INLINING_ROW_LIMIT 0)")
        for name, ddl, sql, stored in CASES:
            con.execute(f"CREATE TABLE lake.t_{name} (c {ddl})")
            con.execute(f"INSERT INTO lake.t_{name} VALUES " + ", ".join(f"({v})" for v in sql))
            tid = con.execute(
                "SELECT table_id FROM __ducklake_metadata_lake.ducklake_table WHERE table_name = ? AND end_snapshot IS NULL",
                [f"t_{name}"],
            ).fetchone()[0]
            cols = con.execute(
                "SELECT column_id, column_order, column_name, column_type, nulls_allowed, parent_column "
                "FROM __ducklake_metadata_lake.ducklake_column WHERE table_id = ? AND end_snapshot IS NULL ORDER BY column_id",
                [tid],
            ).fetchall()
            stats = con.execute(
                "SELECT column_id, value_count, null_count, min_value, max_value, contains_nan, column_size_bytes > 0 "
                "FROM __ducklake_metadata_lake.ducklake_file_column_stats WHERE table_id = ? ORDER BY column_id",
                [tid],
            ).fetchall()
            out.append(
                {
                    "name": name,
                    "rows": stored,
                    "columns": [
                        dict(zip(["column_id", "column_order", "column_name", "column_type", "nulls_allowed", "parent_column"], c))
                        for c in cols
                    ],
                    "stats": [
                        dict(zip(["column_id", "value_count", "null_count", "min_value", "max_value", "contains_nan", "has_size"], s))
                        for s in stats
                    ],
                }
            )
    return out


def main():
    text = json.dumps(capture(), indent=1, ensure_ascii=False) + "\n"
    if "--check" in sys.argv:
        with open(OUT) as f:
            # Compared as data: the committed file is laid out as Biome formats JSON.
            if json.load(f) != json.loads(text):
                sys.exit("test/fixtures/parquet-layout-stats.json differs from stock DuckLake; rerun without --check")
        return
    with open(OUT, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
