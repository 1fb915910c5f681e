"""Stock DuckDB (pinned, tools/requirements.txt) reads every Parquet file the leaf wrote and must see
exactly the declared types, values and field ids, and the same statistics the leaf reported.

    npx tsx tools/parquet/write-fixtures.ts DIR && python3 tools/parquet/check.py DIR
"""
import json, os, sys
import duckdb

def main(d):
    con = duckdb.connect()
    cases = json.load(open(os.path.join(d, "manifest.json")))
    bad = []
    for c in cases:
        path = os.path.join(d, c["name"] + ".parquet").replace("'", "''")
        cols = c["columns"]
        types = con.execute(f"SELECT {', '.join(f'typeof({q(x)})' for x in cols)} FROM '{path}' LIMIT 1").fetchone()
        if list(types) != c["duckdbTypes"]:
            bad.append(f"{c['name']}: types {list(types)} != {c['duckdbTypes']}")
        rows = con.execute(f"SELECT {', '.join(f'{q(x)}::VARCHAR' for x in cols)} FROM '{path}'").fetchall()
        if [list(r) for r in rows] != c["text"]:
            bad.append(f"{c['name']}: values {rows} != {c['text']}")
        ids = dict(con.execute(f"SELECT name, field_id FROM parquet_schema('{path}') WHERE field_id IS NOT NULL").fetchall())
        for name, fid in zip(cols, c["fieldIds"]):
            if fid is not None and ids.get(name) != fid:
                bad.append(f"{c['name']}: field_id of {name} is {ids.get(name)}, expected {fid}")
        (n,) = con.execute(f"SELECT COUNT(*) FROM '{path}'").fetchone()
        if n != c["rowCount"]:
            bad.append(f"{c['name']}: {n} rows, leaf said {c['rowCount']}")
        meta = con.execute(
            f"SELECT path_in_schema, SUM(num_values), SUM(stats_null_count), SUM(total_compressed_size) "
            f"FROM parquet_metadata('{path}') GROUP BY path_in_schema").fetchall()
        by_path = {p.replace(", list", "").replace(", key_value", "").replace(", ", "."): (nv, nc, sz) for p, nv, nc, sz in meta}
        for leaf in c["leaves"]:
            got = by_path.get(leaf["path"])
            if got is None:
                bad.append(f"{c['name']}: leaf {leaf['path']} not in the file ({sorted(by_path)})")
                continue
            nv, nc, sz = got
            if nv != leaf["valueCount"] or (nc is not None and nc != leaf["nullCount"]) or sz != leaf["compressedBytes"]:
                bad.append(f"{c['name']}.{leaf['path']}: duckdb values/nulls/bytes {got} != leaf "
                           f"{(leaf['valueCount'], leaf['nullCount'], leaf['compressedBytes'])}")
    for b in bad:
        print("MISMATCH", b)
    print(f"parquet check: {len(cases)} cases, {len(bad)} mismatches")
    return 1 if bad else 0

def q(name):
    return '"' + name.replace('"', '""') + '"'

if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
