"""Quack side by side: stock DuckDB 1.5.5 clients against ducklake-edge (`wrangler dev --local`) and against
a stock DuckDB Quack server (DuckDB-file DuckLake catalog), each behind a counting proxy, in one run.
Per operation: Quack requests, request and response bytes, and wall time (median), for ATTACH of a new
lake, re-ATTACH, SELECT of one table, and a single-row INSERT. Used by bench/quack.bench.ts; prints
one JSON object ({"rows": [...]}) on stdout. Reuses the conformance suite's process handling
(test/quack/run.py): every process it starts is killed when it ends.

    python3 bench/quack-wire.py [--quick]
"""
import http.client, http.server, json, os, statistics, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "quack"))
import run as suite  # noqa: E402

QUICK = "--quick" in sys.argv
REPS = 3 if QUICK else 10


class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = self.req_bytes = self.resp_bytes = 0

    def snapshot(self):
        with self.lock:
            return (self.requests, self.req_bytes, self.resp_bytes)


def proxy(listen, target, counter):
    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0) or 0))
            c = http.client.HTTPConnection("127.0.0.1", target, timeout=120)
            c.request("POST", self.path, body=body, headers={"content-type": "application/octet-stream"})
            r = c.getresponse()
            rb = r.read()
            with counter.lock:
                counter.requests += 1
                counter.req_bytes += len(body)
                counter.resp_bytes += len(rb)
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
            e, s = results["edge"][op], results["stock"][op]
            med = lambda xs, k: statistics.median(x[k] for x in xs)  # noqa: E731
            rows.append({"operation": op, "edge_requests": med(e, "requests"), "stock_requests": med(s, "requests"),
                         "edge_bytes_up": med(e, "req_bytes"), "edge_bytes_down": med(e, "resp_bytes"),
                         "stock_bytes_down": med(s, "resp_bytes"), "edge_ms": round(med(e, "ms"), 1),
                         "stock_ms": round(med(s, "ms"), 1), "edge/stock time": round(med(e, "ms") / med(s, "ms"), 2)})
    finally:
        for s in servers:
            s.shutdown()
        suite.stop_all()
    print(json.dumps({"reps": REPS, "rows": rows}))


if __name__ == "__main__":
    main()
