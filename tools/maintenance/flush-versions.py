"""Stock DuckLake 1.5.5's flush of a row updated while inlined: what job 1 must write (decision 0183).

Three rows inserted inline (one INSERT), row 1 updated (an inline UPDATE keeps its row id), then
ducklake_flush_inlined_data. Stock writes every version still in the inlined table into the data file,
ORDER BY row_id, begin_snapshot (the old version of row 1 before the new one), with
`_ducklake_internal_row_id` / `_ducklake_internal_snapshot_id`, and a delete file that marks the old
version's position at the update's snapshot; time travel to the insert's snapshot reads the old value.
Exits non-zero if stock no longer does this. Run: python3 tools/maintenance/flush-versions.py
"""

import glob
import os
import sys
import tempfile

import duckdb
import duckdb_extension_ducklake

EXT = os.path.join(
    os.path.dirname(duckdb_extension_ducklake.__file__), "extensions", f"v{duckdb.__version__}", "ducklake.duckdb_extension"
)

# (a, s, _ducklake_internal_row_id, _ducklake_internal_snapshot_id) in file order; snapshot 2 inserted, 3 updated.
EXPECTED_DATA = [(0, "a0", 0, 2), (1, "a1", 1, 2), (1, "u1", 1, 3), (2, "a2", 2, 2)]
EXPECTED_DELETES = [(1, 3)]  # (pos, _ducklake_internal_snapshot_id): the old version of row 1, ended by snapshot 3
EXPECTED_AT = {2: [(0, 0, "a0"), (1, 1, "a1"), (2, 2, "a2")], 3: [(0, 0, "a0"), (1, 1, "u1"), (2, 2, "a2")]}


def main():
    with tempfile.TemporaryDirectory() as root:
        c = duckdb.connect(config={"allow_unsigned_extensions": "true", "autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
        c.execute(f"LOAD '{EXT}'")
        c.execute(f"ATTACH 'ducklake:{root}/cat.ducklake' AS lake (DATA_PATH '{root}/data')")
        c.execute("CREATE TABLE lake.t (a INTEGER, s VARCHAR)")
        c.execute("INSERT INTO lake.t VALUES (0, 'a0'), (1, 'a1'), (2, 'a2')")
        c.execute("UPDATE lake.t SET s = 'u1' WHERE a = 1")
        c.execute("CALL ducklake_flush_inlined_data('lake')")
        files = sorted(glob.glob(f"{root}/data/**/*.parquet", recursive=True))
        data = [f for f in files if not f.endswith("-delete.parquet")]
        deletes = [f for f in files if f.endswith("-delete.parquet")]
        got_data = c.execute(f"SELECT * FROM read_parquet('{data[0]}')").fetchall() if len(data) == 1 else data
        got_deletes = c.execute(f"SELECT pos, _ducklake_internal_snapshot_id FROM read_parquet('{deletes[0]}')").fetchall() if len(deletes) == 1 else deletes
        record_count = c.execute("SELECT record_count FROM __ducklake_metadata_lake.ducklake_data_file").fetchall()
        got_at = {v: c.execute(f"SELECT rowid, * FROM lake.t AT (VERSION => {v}) ORDER BY rowid").fetchall() for v in EXPECTED_AT}
    wrong = []
    if got_data != EXPECTED_DATA:
        wrong.append(f"data file {got_data}")
    if got_deletes != EXPECTED_DELETES:
        wrong.append(f"delete file {got_deletes}")
    if record_count != [(4,)]:
        wrong.append(f"record_count {record_count}")
    if got_at != EXPECTED_AT:
        wrong.append(f"time travel {got_at}")
    if wrong:
        sys.exit("stock DuckLake's flush of an updated inlined row changed: " + "; ".join(wrong))
    print("flush of an updated inlined row: both versions by (row_id, begin_snapshot), record_count 4, the old one deleted at the update")


if __name__ == "__main__":
    main()
