"""Quack side by side: stock DuckDB 1.5.5 clients against ducklake-edge (`wrangler dev --local`) and against
a stock DuckDB Quack server (DuckDB-file DuckLake catalog), each behind a counting proxy, in one run.
Per operation: Quack requests, request and response bytes, and wall time (median), for ATTACH of a new
lake, re-ATTACH, SELECT of one table, and a single-row INSERT; then the same session (ATTACH of an
existing lake, SELECT of one table, a one-row INSERT) on lakes of 10 and 10k tables (1k with --quick),
built out of band on each side (HTTP verbs on the edge, a direct DuckLake attach of the stock file). Used by bench/quack.bench.ts; prints
one JSON object ({"rows": [...]}) on stdout. Reuses the conformance suite's process handling
(test/quack/run.py): every process it starts is killed when it ends.

    python3 bench/quack-wire.py [--quick]
"""
import http.client, http.server, json, os, statistics, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "quack"))
import run as suite  # noqa: E402

# The wide lakes make a full run longer than the suite's own bound on the servers it starts.
suite.RUN_TIMEOUT_S = 2400

QUICK = "--quick" in sys.argv
REPS = 3 if QUICK else 10
# The wide lakes: one session (ATTACH of an existing lake, SELECT of one table, a one-row INSERT) at
# these table counts, on both sides. --quick stops at 1k (10k takes minutes to build on stock).
WIDE = [10, 1_000] if QUICK else [10, 10_000]
WIDE_REPS = 2 if QUICK else 3
# Tables per edge commit while building a wide lake over HTTP (well inside the 1 MiB body limit).
BUILD_CHUNK = 1000
COLUMNS_SQL = "(id BIGINT, region VARCHAR, amount DECIMAL(18,2))"
COLUMNS_VERB = [{"name": "id", "type": "int64"}, {"name": "region", "type": "varchar"},
                {"name": "amount", "type": "decimal(18,2)"}]


class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = self.req_bytes = self.resp_bytes = 0
        # Per phase, the sum of the Worker's `Server-Timing` durations (REQUEST_TIMING=enabled; see
        # bench/quack-statements.py), and the proxy's own view of each request's time.
        self.phases = {}
        self.request_ms = 0.0
        # Each request that reached the lake writer (a `writer` phase): its proxy ms and phases.
        self.writes = []

    def snapshot(self):
        with self.lock:
            return (self.requests, self.req_bytes, self.resp_bytes)

    def timing(self):
        with self.lock:
            return dict(self.phases), self.request_ms


def parse_server_timing(value):
    out = {}
    for part in (value or "").split(","):
        name, _, rest = part.strip().partition(";dur=")
        if name and rest:
            out[name] = out.get(name, 0.0) + float(rest)
    return out


def proxy(listen, target, counter):
    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0) or 0))
            c = http.client.HTTPConnection("127.0.0.1", target, timeout=120)
            t0 = time.perf_counter()
            c.request("POST", self.path, body=body, headers={"content-type": "application/octet-stream"})
            r = c.getresponse()
            rb = r.read()
            ms = (time.perf_counter() - t0) * 1000
            with counter.lock:
                counter.requests += 1
                counter.req_bytes += len(body)
                counter.resp_bytes += len(rb)
                counter.request_ms += ms
                timing = parse_server_timing(r.getheader("server-timing"))
                for k, v in timing.items():
                    counter.phases[k] = counter.phases.get(k, 0.0) + v
                if "writer" in timing:
                    counter.writes.append({"ms": ms, "phases": timing})
            self.send_response(r.status)
            self.send_header("content-type", r.getheader("content-type") or "application/octet-stream")
            self.send_header("content-length", str(len(rb)))
            self.end_headers()
            self.wfile.write(rb)

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", listen), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def measure(side, counter, fn):
    before = counter.snapshot()
    t0 = time.perf_counter()
    fn()
    ms = (time.perf_counter() - t0) * 1000
    after = counter.snapshot()
    return {"ms": ms, "requests": after[0] - before[0], "req_bytes": after[1] - before[1],
            "resp_bytes": after[2] - before[2]}


def edge_call(port, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    c.request(method, path, body=data, headers={"authorization": f"Bearer {suite.DEV_TOKEN}",
                                               "content-type": "application/json"})
    r = c.getresponse()
    text = r.read().decode()
    if r.status >= 300:
        raise RuntimeError(f"{method} {path}: {r.status} {text[:300]}")
    return json.loads(text) if text else None


def build_edge_wide(port, lake, tables, data):
    """A lake with `tables` tables, created over HTTP (one catalog, two front doors)."""
    edge_call(port, "PUT", f"/v1/lakes/{lake}", {"dataPath": data})
    for start in range(0, tables, BUILD_CHUNK):
        verbs = [{"op": "create_table", "name": f"unrelated_{i}", "columns": COLUMNS_VERB}
                 for i in range(start, min(tables, start + BUILD_CHUNK))]
        edge_call(port, "POST", f"/v1/lakes/{lake}/commits", {"verbs": verbs})


def build_stock_wide(path, tables, data):
    """The same lake as a DuckDB-file DuckLake catalog, built directly (not over Quack), in the same
    commits as the edge's (BUILD_CHUNK tables each): the same snapshots and schema versions, so DuckLake
    sends both sides the same statements (a table created at an older schema version makes it load the
    catalog at that version too)."""
    con = suite.connect()
    con.execute(f"ATTACH 'ducklake:{path}' AS lake (DATA_PATH '{data}')")
    for start in range(0, tables, BUILD_CHUNK):
        con.execute("BEGIN")
        for i in range(start, min(tables, start + BUILD_CHUNK)):
            con.execute(f"CREATE TABLE lake.unrelated_{i} {COLUMNS_SQL}")
        con.execute("COMMIT")
    con.close()


def wide_session(work, take, edge_port, edge_proxy, counters):
    """Per table count: ATTACH of the existing lake, SELECT of one table, a one-row INSERT, both sides."""
    rows = []
    for tables in WIDE:
        lake = f"wide-{tables}"
        t0 = time.perf_counter()
        build_edge_wide(edge_port, lake, tables, f"{work}/edge-{lake}-data/")
        edge_build = time.perf_counter() - t0
        stock_file = f"{work}/stock-{lake}.duckdb"
        t0 = time.perf_counter()
        build_stock_wide(stock_file, tables, f"{work}/stock-{lake}-data/")
        stock_build = time.perf_counter() - t0
        stock_port, stock_proxy = take(), take()
        stock = suite.StockServer(stock_file, stock_port)
        sp = proxy(stock_proxy, stock_port, counters["stock"])
        try:
            targets = {
                "edge": (f"CREATE SECRET (TYPE quack, TOKEN '{lake}:{suite.DEV_TOKEN}', "
                         f"SCOPE 'quack:127.0.0.1:{edge_proxy}/{lake}')",
                         f"ducklake:quack:127.0.0.1:{edge_proxy}/{lake}"),
                "stock": (f"CREATE SECRET (TYPE quack, TOKEN '{suite.STOCK_TOKEN}', SCOPE 'quack:127.0.0.1:{stock_proxy}')",
                          f"ducklake:quack:127.0.0.1:{stock_proxy}"),
            }
            results = {"edge": {}, "stock": {}}
            for rep in range(WIDE_REPS):
                for side, (secret, attach) in targets.items():
                    con = suite.connect()
                    con.execute(secret)
                    ops = [
                        ("ATTACH", lambda: con.execute(f"ATTACH '{attach}' AS lake")),
                        ("SELECT one table", lambda: con.execute("SELECT * FROM lake.unrelated_0").fetchall()),
                        ("INSERT one row", lambda: con.execute(
                            f"INSERT INTO lake.unrelated_0 VALUES ({rep}, 'eu', 1.50)").fetchall()),
                    ]
                    for op, fn in ops:
                        results[side].setdefault(op, []).append(measure(side, counters[side], fn))
                    con.close()
            for op in results["edge"]:
                rows.append(summary(f"{op} ({tables} tables)", results["edge"][op], results["stock"][op],
                                    tables=tables))
            rows[-1]["build_s"] = f"edge {edge_build:.0f} / stock {stock_build:.0f}"
        finally:
            sp.shutdown()
            sp.server_close()
            stock.stop()
            take.release(stock_port)
            take.release(stock_proxy)
    return rows


def summary(op, e, s, **extra):
    med = lambda xs, k: statistics.median(x[k] for x in xs)  # noqa: E731
    return {"operation": op, **extra, "edge_requests": med(e, "requests"), "stock_requests": med(s, "requests"),
            "edge_bytes_up": med(e, "req_bytes"), "edge_bytes_down": med(e, "resp_bytes"),
            "stock_bytes_up": med(s, "req_bytes"), "stock_bytes_down": med(s, "resp_bytes"),
            "edge_ms": round(med(e, "ms"), 1), "stock_ms": round(med(s, "ms"), 1),
            "edge/stock time": round(med(e, "ms") / med(s, "ms"), 2)}


def main():
    take = suite.port_source()
    work = tempfile.mkdtemp(prefix="quack-bench-")
    edge_port, inspector, edge_proxy, stock_proxy = take(), take(), take(), take()
    counters = {"edge": Counter(), "stock": Counter()}
    servers = []
    rows = []
    try:
        suite.start_wrangler(edge_port, inspector, f"{work}/wrangler-state", f"{work}/wrangler.log")
        servers.append(proxy(edge_proxy, edge_port, counters["edge"]))
        results = {"edge": {}, "stock": {}}
        for rep in range(REPS):
            stock_port = take()
            stock = suite.StockServer(f"{work}/stock-{rep}.duckdb", stock_port)
            sp = proxy(stock_proxy, stock_port, counters["stock"])
            lake = f"bench-{rep}"
            targets = {
                "edge": (f"CREATE SECRET (TYPE quack, TOKEN '{lake}:{suite.DEV_TOKEN}', "
                         f"SCOPE 'quack:127.0.0.1:{edge_proxy}/{lake}')", f"ducklake:quack:127.0.0.1:{edge_proxy}/{lake}"),
                "stock": (f"CREATE SECRET (TYPE quack, TOKEN '{suite.STOCK_TOKEN}', SCOPE 'quack:127.0.0.1:{stock_proxy}')",
                          f"ducklake:quack:127.0.0.1:{stock_proxy}"),
            }
            for side, (secret, attach) in targets.items():
                con = suite.connect()
                con.execute(secret)
                data = f"{work}/{side}-{rep}-data/"
                ops = [
                    ("ATTACH (new lake)", lambda: con.execute(f"ATTACH '{attach}' AS lake (DATA_PATH '{data}')")),
                    ("CREATE TABLE", lambda: con.execute("CREATE TABLE lake.t (id INTEGER, s VARCHAR)")),
                    ("INSERT one row", lambda: con.execute("INSERT INTO lake.t VALUES (1, 'a')").fetchall()),
                    ("SELECT one table", lambda: con.execute("SELECT * FROM lake.t").fetchall()),
                    ("re-ATTACH", lambda: (con.execute("DETACH lake"),
                                          con.execute(f"ATTACH '{attach}' AS lake (DATA_PATH '{data}')"))),
                    ("SELECT after re-ATTACH", lambda: con.execute("SELECT * FROM lake.t").fetchall()),
                ]
                for op, fn in ops:
                    results[side].setdefault(op, []).append(measure(side, counters[side], fn))
                con.close()
            sp.shutdown()
            sp.server_close()
            stock.stop()
            take.release(stock_port)
        for op in results["edge"]:
            rows.append(summary(op, results["edge"][op], results["stock"][op], tables=1))
        rows.extend(wide_session(work, take, edge_port, edge_proxy, counters))
    finally:
        for s in servers:
            s.shutdown()
        suite.stop_all()
    print(json.dumps({"reps": REPS, "wide_reps": WIDE_REPS, "rows": rows}))


if __name__ == "__main__":
    main()
