"""Golden Quack v1 wire bytes from the real thing: stock DuckDB 1.5.5 (pinned wheels) as a Quack server,
a logging proxy in front of it, and stock clients (a DuckLake session, and `quack_query` of typed values).

    python3 tools/quack-wire-capture.py [OUTDIR] [PORT]   # default test/fixtures/quack/wire, ports 9200/9201

Writes OUTDIR/NNNN-req.bin, NNNN-resp.bin (raw HTTP bodies) and index.json (per exchange: the step that
sent it, HTTP status, content types). The unit tests in test/worker/quack/ decode every pair and re-encode
it byte-identically. Binds 127.0.0.1 only; every process it starts is stopped before it exits.
"""
import glob, http.client, http.server, json, os, shutil, sys, tempfile, threading
import duckdb
import duckdb_extension_ducklake, duckdb_extension_httpfs, duckdb_extension_quack

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "test", "fixtures", "quack", "wire")
PORT = int(sys.argv[2]) if len(sys.argv) > 2 else 9200
TOKEN = "probe-token"


def ext(mod, name):
    return glob.glob(os.path.dirname(mod.__file__) + f"/extensions/v{duckdb.__version__}/{name}.duckdb_extension")[0]


EXT = {"ducklake": ext(duckdb_extension_ducklake, "ducklake"), "quack": ext(duckdb_extension_quack, "quack"),
       "httpfs": ext(duckdb_extension_httpfs, "httpfs")}


def connect(path=":memory:", load=("httpfs", "quack", "ducklake")):
    con = duckdb.connect(path, config={"allow_unsigned_extensions": "true", "autoinstall_known_extensions": "false",
                                       "autoload_known_extensions": "false"})
    for e in load:
        con.execute(f"LOAD '{EXT[e]}'")
    return con


exchanges = []
step = ["connect"]
lock = threading.Lock()


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def _do(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0) or 0))
        c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
        hdrs = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
        c.request(self.command, self.path, body=body, headers=hdrs)
        r = c.getresponse()
        rb = r.read()
        with lock:
            i = len(exchanges) + 1
            open(f"{OUT}/{i:04d}-req.bin", "wb").write(body)
            open(f"{OUT}/{i:04d}-resp.bin", "wb").write(rb)
            exchanges.append({"i": i, "step": step[0], "method": self.command, "path": self.path, "status": r.status,
                              "req_type": self.headers.get("content-type"), "resp_type": r.getheader("content-type"),
                              "req_len": len(body), "resp_len": len(rb)})
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(k, v)
        self.send_header("content-length", str(len(rb)))
        self.end_headers()
        self.wfile.write(rb)

    do_POST = do_GET = do_OPTIONS = _do


# Typed values: every SqlType the codec encodes, with NULLs, nested values and a multi-chunk result.
TYPED = [
    ("scalars", "SELECT true AS b, -5::TINYINT AS ti, -300::SMALLINT AS si, 70000::INTEGER AS i, "
                "-9000000000::BIGINT AS bi, 200::UTINYINT AS uti, 60000::USMALLINT AS usi, 4000000000::UINTEGER AS ui, "
                "18000000000000000000::UBIGINT AS ubi, -170141183460469231731687303715884105727::HUGEINT AS hi, "
                "340282366920938463463374607431768211455::UHUGEINT AS uhi, 1.5::FLOAT AS f, -2.25::DOUBLE AS d"),
    ("strings", "SELECT 'héllo' AS v, ''::VARCHAR AS e, '\\x00\\xFF'::BLOB AS bl, "
                "'{\"a\": 1}'::JSON AS j, '0190e6ae-8b5c-7d2a-9f3e-0123456789ab'::UUID AS u, "
                "'00000000-0000-0000-0000-000000000000'::UUID AS u0, 'ffffffff-ffff-ffff-ffff-ffffffffffff'::UUID AS u1"),
    ("times", "SELECT DATE '2024-02-29' AS dt, DATE '1969-12-31' AS dneg, TIME '13:45:30.123456' AS tm, "
              "TIMETZ '13:45:30+02:00' AS ttz, TIMESTAMP '2024-02-29 13:45:30.123456' AS ts, "
              "TIMESTAMP_S '2024-02-29 13:45:30' AS tss, TIMESTAMP_MS '2024-02-29 13:45:30.123' AS tsms, "
              "TIMESTAMP_NS '2024-02-29 13:45:30.123456789' AS tsns, "
              "TIMESTAMPTZ '2024-02-29 13:45:30.5+00' AS tstz, INTERVAL '1 year 2 days 3 seconds' AS iv"),
    ("decimals", "SELECT 12.34::DECIMAL(4,2) AS d4, -12345.678::DECIMAL(9,3) AS d9, "
                 "123456789012.345678::DECIMAL(18,6) AS d18, -12345678901234567890.123456789::DECIMAL(38,9) AS d38"),
    ("nested", "SELECT [1, NULL, 3] AS l, []::INTEGER[] AS le, [[1], NULL, [2, 3]] AS ll, "
               "{'a': 1, 'b': 'x'} AS s, [{'k': 'v', 'n': NULL}] AS ls, MAP {'x': 1, 'y': NULL} AS m, "
               "[1, 2, 3]::INTEGER[3] AS arr, NULL AS nul"),
    ("nulls", "SELECT * FROM (VALUES (1, 'a', [1], {'x': 1}), (NULL, NULL, NULL, NULL), (3, NULL, [NULL], {'x': NULL})) "
              "t(i, s, l, st)"),
    ("null-scalars", "SELECT NULL::BOOLEAN AS c0, NULL::TINYINT AS c1, NULL::SMALLINT AS c2, NULL::INTEGER AS c3, NULL::BIGINT AS c4, NULL::UTINYINT AS c5, NULL::USMALLINT AS c6, NULL::UINTEGER AS c7, NULL::UBIGINT AS c8, NULL::HUGEINT AS c9, NULL::UHUGEINT AS c10, NULL::FLOAT AS c11, NULL::DOUBLE AS c12, NULL::VARCHAR AS c13, NULL::BLOB AS c14, NULL::JSON AS c15, NULL::UUID AS c16, NULL::DATE AS c17, NULL::TIME AS c18, NULL::TIMETZ AS c19, NULL::TIMESTAMP AS c20, NULL::TIMESTAMP_S AS c21, NULL::TIMESTAMP_MS AS c22, NULL::TIMESTAMP_NS AS c23, NULL::TIMESTAMPTZ AS c24, NULL::INTERVAL AS c25, NULL::DECIMAL(4,1) AS c26, NULL::DECIMAL(9,1) AS c27, NULL::DECIMAL(18,1) AS c28, NULL::DECIMAL(38,1) AS c29, NULL::INTEGER[2] AS c30 UNION ALL SELECT NULL::BOOLEAN AS c0, NULL::TINYINT AS c1, NULL::SMALLINT AS c2, NULL::INTEGER AS c3, NULL::BIGINT AS c4, NULL::UTINYINT AS c5, NULL::USMALLINT AS c6, NULL::UINTEGER AS c7, NULL::UBIGINT AS c8, NULL::HUGEINT AS c9, NULL::UHUGEINT AS c10, NULL::FLOAT AS c11, NULL::DOUBLE AS c12, NULL::VARCHAR AS c13, NULL::BLOB AS c14, NULL::JSON AS c15, NULL::UUID AS c16, NULL::DATE AS c17, NULL::TIME AS c18, NULL::TIMETZ AS c19, NULL::TIMESTAMP AS c20, NULL::TIMESTAMP_S AS c21, NULL::TIMESTAMP_MS AS c22, NULL::TIMESTAMP_NS AS c23, NULL::TIMESTAMPTZ AS c24, NULL::INTERVAL AS c25, NULL::DECIMAL(4,1) AS c26, NULL::DECIMAL(9,1) AS c27, NULL::DECIMAL(18,1) AS c28, NULL::DECIMAL(38,1) AS c29, NULL::INTEGER[2] AS c30"),
    ("many", "SELECT CASE WHEN i % 7 = 0 THEN NULL ELSE i::INTEGER END AS i FROM range(24577) r(i)"),
    ("empty", "SELECT 1::INTEGER AS i WHERE false"),
    ("error", "SELECT * FROM no_such_table"),
    ("multi", "SELECT 1 AS a; SELECT 'two' AS b"),
]


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    tmp = tempfile.mkdtemp(prefix="quack-wire-")
    # No ducklake on the server: DuckLake then commits client-side (no ducklake_commit), as this server serves.
    srv = connect(f"{tmp}/meta.duckdb", load=("httpfs", "quack"))
    srv.execute(f"CALL quack_serve('quack:127.0.0.1:{PORT}', token => '{TOKEN}')")
    px = http.server.ThreadingHTTPServer(("127.0.0.1", PORT + 1), Proxy)
    threading.Thread(target=px.serve_forever, daemon=True).start()
    uri = f"quack:127.0.0.1:{PORT + 1}"
    results = {}
    try:
        cli = connect()
        cli.execute(f"CREATE SECRET (TYPE quack, TOKEN '{TOKEN}', SCOPE '{uri}')")
        for name, sql in TYPED:
            step[0] = f"typed:{name}"
            try:
                rel = cli.execute(f"SELECT * FROM quack_query('{uri}', {duckdb_quote(sql)})")
                results[name] = {"types": [str(d[1]) for d in rel.description], "rows": len(rel.fetchall())}
            except duckdb.Error as e:
                results[name] = {"error": f"{type(e).__name__}: {e}"}
        bad = connect()
        bad.execute(f"CREATE SECRET (TYPE quack, TOKEN 'wrong-token', SCOPE '{uri}')")
        step[0] = "auth:wrong-token"
        try:
            bad.execute(f"SELECT * FROM quack_query('{uri}', 'SELECT 1')").fetchall()
        except duckdb.Error as e:
            results["wrong-token"] = {"error": f"{type(e).__name__}: {e}"}
        for s in [f"ATTACH 'ducklake:{uri}' AS lake (DATA_PATH '{tmp}/data/')",
                  "CREATE TABLE lake.t (id INTEGER, s VARCHAR)", "INSERT INTO lake.t VALUES (1, 'a')",
                  "SELECT count(*) FROM lake.t", "DETACH lake"]:
            step[0] = "ducklake:" + s.split(" ")[0].lower()
            cli.execute(s).fetchall()
    finally:
        px.shutdown()
        srv.close()
        shutil.rmtree(tmp, ignore_errors=True)
    with open(f"{OUT}/index.json", "w") as f:
        json.dump({"duckdb": duckdb.__version__, "exchanges": exchanges, "client_results": results}, f, indent=1)
        f.write("\n")
    print(f"{len(exchanges)} exchanges -> {OUT}")


def duckdb_quote(s):
    return "'" + s.replace("'", "''") + "'"


if __name__ == "__main__":
    main()
