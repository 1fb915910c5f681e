"""Writes the small Parquet fixture the README walkthrough and its test upload, plus its stats.

Run once by hand (pip install duckdb==1.5.5); the outputs are committed so the suite needs no DuckDB.
    python3 tools/make-fixture.py
"""
import json
import os

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "test", "fixtures")
PARQUET = os.path.join(OUT, "orders-1.parquet")

con = duckdb.connect()
con.execute(
    """
    COPY (
      SELECT * FROM (VALUES
        (1, 19.5, 'eu'),
        (2, 5.25, 'us'),
        (3, 42.0, 'eu')
      ) AS t(id, amount, region)
    ) TO ? (FORMAT parquet)
    """,
    [PARQUET],
)
rows = con.execute(
    """
    SELECT path_in_schema, sum(num_values)::BIGINT, min(stats_min_value), max(stats_max_value),
           sum(stats_null_count)::BIGINT
    FROM parquet_metadata(?) GROUP BY path_in_schema ORDER BY path_in_schema
    """,
    [PARQUET],
).fetchall()
meta = {
    "file": "orders-1.parquet",
    "recordCount": con.execute("SELECT count(*) FROM read_parquet(?)", [PARQUET]).fetchone()[0],
    "fileSizeBytes": os.path.getsize(PARQUET),
    "footerSize": con.execute("SELECT footer_size FROM parquet_file_metadata(?)", [PARQUET]).fetchone()[0]
    if "footer_size" in [c[0] for c in con.execute("DESCRIBE SELECT * FROM parquet_file_metadata(?)", [PARQUET]).fetchall()]
    else None,
    "columns": {r[0]: {"valueCount": r[1], "min": r[2], "max": r[3], "nullCount": r[4]} for r in rows},
}
with open(os.path.join(OUT, "orders-1.json"), "w") as f:
    json.dump(meta, f, indent=2)
    f.write("\n")
print(json.dumps(meta, indent=2))
