"""Stock DuckLake 1.5.5 reads a flush file laid out by job 1 exactly as its own flush file.

Runs a stock scenario (3 single-row inserts, ducklake_flush_inlined_data), reads the table at every
snapshot, swaps the flushed file for `<dir>/flush.parquet` (tools/maintenance/flush-file.ts) with its
size and footer registered, and reads again: rows, row ids and time travel must be identical.
Run: npx tsx tools/maintenance/flush-file.ts DIR && python3 tools/maintenance/flush-check.py DIR
"""

import glob
import os
import shutil
import struct
import sys
import tempfile

import duckdb
import duckdb_extension_ducklake

EXT = os.path.join(
    os.path.dirname(duckdb_extension_ducklake.__file__), "extensions", f"v{duckdb.__version__}", "ducklake.duckdb_extension"
)


def connect(root):
    c = duckdb.connect(config={"allow_unsigned_extensions": "true", "autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
    c.execute(f"LOAD '{EXT}'")
    c.execute(f"ATTACH 'ducklake:{root}/cat.ducklake' AS lake (DATA_PATH '{root}/data')")
    return c


def dump(c):
    return {v: c.execute(f"SELECT rowid, * FROM lake.t AT (VERSION => {v}) ORDER BY rowid").fetchall() for v in range(2, 6)}


def main():
    ours = os.path.join(sys.argv[1], "flush.parquet")
    with tempfile.TemporaryDirectory() as root:
        c = connect(root)
        c.execute("CREATE TABLE lake.t (a INTEGER, s VARCHAR)")
        for i in range(3):
            c.execute(f"INSERT INTO lake.t VALUES ({i}, 'x{i}')")
        c.execute("CALL ducklake_flush_inlined_data('lake')")
        stock = dump(c)
        path = c.execute("SELECT path FROM __ducklake_metadata_lake.ducklake_data_file").fetchone()[0]
        target = glob.glob(f"{root}/data/**/{path}", recursive=True)[0]
        data = open(ours, "rb").read()
        footer = struct.unpack("<I", data[-8:-4])[0]
        c.execute(f"UPDATE __ducklake_metadata_lake.ducklake_data_file SET file_size_bytes = {len(data)}, footer_size = {footer}")
        c.close()
        shutil.copy(ours, target)
        swapped = dump(connect(root))
    if swapped != stock:
        sys.exit(f"stock DuckLake reads the job-1 flush file differently:\nstock   {stock}\njob 1   {swapped}")
    print("flush file: identical rows, row ids and time travel at every snapshot")


if __name__ == "__main__":
    main()
