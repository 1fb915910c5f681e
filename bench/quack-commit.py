"""DuckLake PR #1191's workload over Quack, side by side and interleaved: N stock DuckDB 1.5.5 client
processes, each committing single-row INSERTs into one table for a fixed time, against (a) ducklake-edge
(`wrangler dev --local`, server-side `ducklake_commit` batched by the writer), (b) a stock DuckDB Quack
server with `ducklake` loaded (server-side retrial) and (c) the same without it (client-side retrial).
Per target and N: committed tx/s, failed transactions, commit latency p50/p99, and for (a) commits per
WAL PUT (the writer's metrics route). Used by bench/quack-commit.bench.ts; prints one JSON object
({"rows": [...]}) on stdout. Every process it starts is killed when it ends (test/quack/run.py).

    python3 bench/quack-commit.py [--quick]
"""
import json, os, subprocess, sys, tempfile, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "quack"))
import run as suite  # noqa: E402

QUICK = "--quick" in sys.argv
CLIENTS = [1, 16, 64]
DURATION_S = 5 if QUICK else 20
# Time for N client processes to start and ATTACH before the measured window opens.
START_GRACE_S = 25
CLIENT_TIMEOUT_S = 300

CLIENT = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import run as suite
secret, attach, data, start, end = sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), float(sys.argv[6])
me = int(sys.argv[7])
con = suite.connect()
con.execute(secret)
con.execute(f"ATTACH '{attach}' AS lake (DATA_PATH '{data}')")
while time.time() < start:
    time.sleep(0.005)
ok, failed, lat, errors = 0, 0, [], []
i = 0
while time.time() < end:
    t0 = time.perf_counter()
    try:
        con.execute(f"INSERT INTO lake.t VALUES ({me}, {i})")
        ok += 1
        lat.append((time.perf_counter() - t0) * 1000)
    except Exception as e:  # a failed transaction: counted, reported, the client goes on
        failed += 1
        if len(errors) < 3:
            errors.append(str(e)[:300])
    i += 1
print(json.dumps({"ok": ok, "failed": failed, "lat": lat, "errors": errors}))
"""


def pct(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(p / 100 * len(xs)))], 1)


def edge_metrics(port, lake):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/lakes/{lake}/metrics",
                                 headers={"authorization": f"Bearer {suite.DEV_TOKEN}"})
    with urllib.request.urlopen(req, timeout=30) as r:
        m = json.load(r)["metrics"]
    return m["commits"]["ok"], m["flushes"]


def run_clients(n, secret, attach, data):
    start = time.time() + START_GRACE_S
    end = start + DURATION_S
    procs = [subprocess.Popen([sys.executable, "-c", CLIENT, os.path.join(HERE, "..", "test", "quack"), secret,
                               attach, data, str(start), str(end), str(k)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
             for k in range(n)]
    suite.STARTED.extend(procs)
    ok, failed, lat, errors = 0, 0, [], []
    for p in procs:
        out, err = p.communicate(timeout=CLIENT_TIMEOUT_S)
        try:
            r = json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            failed += 1
            errors.append(f"client died: {err[-300:]}")
            continue
        ok += r["ok"]
        failed += r["failed"]
        lat += r["lat"]
        errors += r["errors"]
    return ok, failed, lat, errors


def main():
    take = suite.port_source()
    work = tempfile.mkdtemp(prefix="quack-commit-bench-")
    edge_port, inspector = take(), take()
    rows = []
    try:
        suite.start_wrangler(edge_port, inspector, f"{work}/wrangler-state", f"{work}/wrangler.log", server_commit=True)
        for n in CLIENTS:
            for target in ("a: ducklake-edge", "b: stock + ducklake", "c: stock, no ducklake"):
                tag = f"{target[0]}{n}"
                data = f"{work}/{tag}-data/"
                stock = None
                if target.startswith("a"):
                    lake = f"bench-commit-{tag}"
                    secret = (f"CREATE SECRET (TYPE quack, TOKEN '{lake}:{suite.DEV_TOKEN}', "
                              f"SCOPE 'quack:127.0.0.1:{edge_port}/{lake}')")
                    attach = f"ducklake:quack:127.0.0.1:{edge_port}/{lake}"
                else:
                    port = take()
                    load = ("httpfs", "quack", "ducklake") if target.startswith("b") else ("httpfs", "quack")
                    con = suite.connect(f"{work}/{tag}.duckdb", load=load)
                    con.execute(f"CALL quack_serve('quack:127.0.0.1:{port}', token => '{suite.STOCK_TOKEN}')")
                    stock = (con, port)
                    secret = f"CREATE SECRET (TYPE quack, TOKEN '{suite.STOCK_TOKEN}', SCOPE 'quack:127.0.0.1:{port}')"
                    attach = f"ducklake:quack:127.0.0.1:{port}"
                setup = suite.connect()
                setup.execute(secret)
                setup.execute(f"ATTACH '{attach}' AS lake (DATA_PATH '{data}')")
                setup.execute("CREATE TABLE lake.t (w INTEGER, i INTEGER)")
                setup.execute("INSERT INTO lake.t VALUES (-1, -1)")
                before = edge_metrics(edge_port, lake) if target.startswith("a") else None
                ok, failed, lat, errors = run_clients(n, secret, attach, data)
                row = {"clients": n, "target": target, "tx/s": round(ok / DURATION_S, 1), "committed": ok,
                       "failed tx": failed, "p50 ms": pct(lat, 50), "p99 ms": pct(lat, 99)}
                if before is not None:
                    after = edge_metrics(edge_port, lake)
                    puts = after[1] - before[1]
                    row["commits/WAL PUT"] = round((after[0] - before[0]) / puts, 1) if puts > 0 else None
                count = setup.execute("SELECT count(*) FROM lake.t").fetchone()[0]
                row["rows"] = count
                if errors:
                    row["first error"] = errors[0][:160]
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
                setup.close()
                if stock:
                    try:
                        stock[0].execute(f"CALL quack_stop('quack:127.0.0.1:{stock[1]}')")
                    except Exception:
                        pass
                    stock[0].close()
                    take.release(stock[1])
    finally:
        suite.stop_all()
    print(json.dumps({"duration_s": DURATION_S, "rows": rows}))


if __name__ == "__main__":
    main()
