"""The Quack door with stock DuckDB 1.5.5 clients (issue 24, docs/decisions/0401-quack-connection-nonce.md,
0402, 0405):

1. Two client *processes* with one token ATTACH in the same second and scan a table whose rows the server
   answers in FETCH pages (30,000 inlined rows: PREPARE's 12 chunks, then pages), 30 rounds: every scan
   returns every row. Before connection ids had a random part, both processes got the same id and closed
   each other's pages ("Result has been closed").
2. `data_inlining_row_limit` above the catalog's per-commit inline limit is refused at set_option, naming
   why; at the limit a 30,000-row INSERT (written as Parquet) and a 10,000-row one (inlined) both land.

It starts its own `wrangler dev` (ports from QUACK_TEST_PORTS, else free ones), runs every process in its
own process group under `timeout`, and kills them all when it ends (`run.STARTED`).

    python3 test/quack/door.py
"""
import json, os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as suite  # noqa: E402

ROUNDS = 30
ROWS = 30_000
INLINE_LIMIT = 10_000  # catalog MAX_INLINED_ROWS_PER_COMMIT
CLIENT_TIMEOUT_S = 600
# catalog/maintenance/settings.ts JOB_SWITCH
MAINTENANCE_SWITCHES = ("maintenance_flush_inlined", "maintenance_merge_adjacent", "maintenance_rewrite_deletes",
                        "maintenance_expire_snapshots", "maintenance_delete_files")
RUN_TIMEOUT_S = 900

CLIENT = r"""
import sys
sys.path.insert(0, sys.argv[1])
import run as suite
secret, attach, data, rounds = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
con = suite.connect()
con.execute("SET enable_progress_bar = false")
con.execute(secret)
print("ready", flush=True)
for i in range(rounds):
    sys.stdin.readline()  # the gate: both processes ATTACH at once
    try:
        con.execute(f"ATTACH '{attach}' AS r{i} (DATA_PATH '{data}')")
        rows = con.execute(f"SELECT a FROM r{i}.t").fetchall()
        con.execute(f"DETACH r{i}")
        got = (len(rows), sum(r[0] for r in rows))
        print("ok" if got == (%d, %d) else f"wrong {got}", flush=True)
    except Exception as e:
        print(f"error {type(e).__name__}: {str(e)[:300]}".replace("\n", " "), flush=True)
""" % (ROWS, ROWS * (ROWS - 1) // 2)


def client_connection(port, lake, data):
    con = suite.connect()
    con.execute(f"CREATE SECRET (TYPE quack, TOKEN '{lake}:{suite.DEV_TOKEN}', SCOPE 'quack:127.0.0.1:{port}/{lake}')")
    con.execute(f"ATTACH 'ducklake:quack:127.0.0.1:{port}/{lake}' AS lake (DATA_PATH '{data}')")
    return con


def two_processes_scan(port, work):
    lake = "door-scan"
    data = f"{work}/{lake}-data/"
    con = client_connection(port, lake, data)
    con.execute("CREATE TABLE lake.t (a INTEGER, b VARCHAR)")
    # The rows stay inlined (the server answers them, in pages): no job flushes them into a file in R2,
    # which these clients, reading the local DATA_PATH, could not open (switches: HTTP only).
    status, body = suite.http(port, "POST", f"/v1/lakes/{lake}/commits",
                              {"verbs": [{"op": "set_option", "name": job, "value": "false"}
                                         for job in MAINTENANCE_SWITCHES]})
    if status != 200:
        return [{"check": "maintenance switched off", "got": [status, body]}]
    con.execute(f"CALL lake.set_option('data_inlining_row_limit', {INLINE_LIMIT})")
    for start in range(0, ROWS, INLINE_LIMIT):  # inlined: the server answers the scan, in FETCH pages
        con.execute(f"INSERT INTO lake.t SELECT i, 'row ' || i FROM range({start}, {start + INLINE_LIMIT}) r(i)")
    con.close()
    secret = f"CREATE SECRET (TYPE quack, TOKEN '{lake}:{suite.DEV_TOKEN}', SCOPE 'quack:127.0.0.1:{port}/{lake}')"
    attach = f"ducklake:quack:127.0.0.1:{port}/{lake}"
    procs = [subprocess.Popen(["timeout", str(CLIENT_TIMEOUT_S), sys.executable, "-c", CLIENT, suite.HERE, secret,
                               attach, data, str(ROUNDS)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True) for _ in range(2)]
    suite.STARTED.extend(procs)
    if [p.stdout.readline() for p in procs] != ["ready\n"] * 2:
        return [{"check": "clients start", "stderr": [p.communicate(timeout=60)[1][-300:] for p in procs]}]
    failures = []
    for i in range(ROUNDS):
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        for n, p in enumerate(procs):
            line = p.stdout.readline().strip()
            if line != "ok":
                failures.append({"round": i, "client": n, "got": line or p.stderr.read()[-300:]})
    for p in procs:
        p.stdin.close()
        p.wait(timeout=60)
    return [{"check": f"{ROUNDS} rounds of two same-second scans, 0 failures", "failures": failures}] if failures else []


def inlining_limit(port, work):
    lake = "door-inline"
    con = client_connection(port, lake, f"{work}/{lake}-data/")
    con.execute("CREATE TABLE lake.t (a INTEGER, b VARCHAR)")
    problems = []
    try:
        con.execute("CALL lake.set_option('data_inlining_row_limit', 100000)")
        problems.append({"check": "data_inlining_row_limit 100000 refused", "got": "accepted"})
    except Exception as e:
        if f"above {INLINE_LIMIT}" not in str(e):
            problems.append({"check": "the refusal says why", "got": str(e)[:300]})
    con.execute(f"CALL lake.set_option('data_inlining_row_limit', {INLINE_LIMIT})")
    for n in (ROWS, INLINE_LIMIT):
        try:
            con.execute(f"INSERT INTO lake.t SELECT i, 'x' || i FROM range({n}) r(i)")
        except Exception as e:
            problems.append({"check": f"a {n}-row INSERT lands", "got": str(e)[:300]})
    got = con.execute("SELECT count(*) FROM lake.t").fetchone()[0]
    if got != ROWS + INLINE_LIMIT:
        problems.append({"check": "every inserted row reads back", "got": got})
    con.close()
    return problems


def main():
    suite.signal.alarm(RUN_TIMEOUT_S)
    take_port = suite.port_source()
    work = tempfile.mkdtemp(prefix="quack-door-")
    failed = 0
    try:
        port, inspector = take_port(), take_port()
        suite.start_wrangler(port, inspector, f"{work}/wrangler-state", f"{work}/wrangler.log")
        for name, check in (("two processes, one token, same-second scans", two_processes_scan),
                            ("data_inlining_row_limit within the inline limit", inlining_limit)):
            problems = check(port, work)
            if problems:
                failed += 1
                print(f"FAIL {name}")
                print(json.dumps(problems, indent=1, default=str)[:6000])
            else:
                print(f"ok   {name}")
    finally:
        suite.stop_all()
        if failed:
            print(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
