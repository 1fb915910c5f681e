"""One data plane, end to end (issue 27, docs/decisions/0500-0502): stock DuckDB 1.5.5 against `wrangler dev`
through the recipe alone (`GET /v1/lakes/{lake}/quack`: the data secret for the Worker's S3 endpoint, the
Quack secret, the ATTACH), and the same rows everywhere:

- a large INSERT through multipart uploads, scans with filters (ranged GETs), UPDATE/DELETE (delete files),
  `ducklake_merge_adjacent_files`, the writer's own `flush_inlined` followed by a DuckDB read,
  `ducklake_expire_snapshots` + `ducklake_cleanup_old_files` (the files leave the lake's prefix);
- the rows API reading DuckDB's Parquet and DuckDB reading the rows flusher's Parquet;
- `ducklake_delete_orphaned_files` (decision 0630): an upload whose commit is in flight (PUT through the S3
  endpoint, its transaction still open) survives the CALL even under `cleanup_all`, the transaction then
  commits and reads every row; an object no catalog row names, once past the lake's `delete_older_than`
  grace, is deleted by the same CALL, and no registered file is;
- the README's old local recipe (`ATTACH … (DATA_PATH '<dir>')`): many inserts and the lake's maintenance
  later, DuckDB still reads every row; the writer's file jobs and row writes say why they are off.

    python3 test/quack/data_plane.py [--rows N]      # QUACK_TEST_PORTS=first-last to choose the ports

Every process it starts runs under `timeout` in its own process group and is killed when the run ends.
"""
import argparse, json, os, sys, tempfile, urllib.error, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import run as suite  # noqa: E402

TOKEN = suite.DEV_TOKEN  # the admin dev token test/quack/run.py starts wrangler dev with
HTTP_TIMEOUT_S = 120
FAILURES = []


def check(name, ok, detail=None):
    print(("ok:   " if ok else "FAIL: ") + name + ("" if ok else f"\n      {detail}"), flush=True)
    if not ok:
        FAILURES.append(name)


def api(port, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"authorization": f"Bearer {TOKEN}", "content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=HTTP_TIMEOUT_S) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def recipe_session(port, lake):
    """A DuckDB connection that ran the recipe's statements (token filled in) and nothing else."""
    status, recipe = api(port, "GET", f"/v1/lakes/{lake}/quack")
    if status != 200:
        raise RuntimeError(f"GET /v1/lakes/{lake}/quack answered {status} {recipe}")
    con = suite.connect()
    for stmt in recipe["statements"]:
        if stmt.startswith("LOAD "):
            continue  # suite.connect() loaded the pinned extensions
        con.execute(stmt.replace("<token>", TOKEN))
    return con, recipe


def all_rows(port, lake, table):
    rows, cursor = [], None
    while True:
        q = f"?limit=100000" + (f"&cursor={cursor}" if cursor else "")
        status, page = api(port, "GET", f"/v1/lakes/{lake}/tables/main/{table}/rows{q}")
        if status != 200:
            return status, page
        rows += page["rows"]
        cursor = page.get("next")
        if not cursor:
            return 200, rows


def the_lake_plane(port, n):
    lake = "plane"
    con, recipe = recipe_session(port, lake)
    check("the recipe answers a data secret for this host's /s3 and no local directory",
          recipe["dataSecret"] and f"ENDPOINT '127.0.0.1:{port}/s3'" in recipe["dataSecret"]
          and "/tmp" not in json.dumps(recipe), recipe)
    con.execute(f"SET s3_uploader_max_filesize = '50GB'")  # 5 MiB parts: a multipart upload at this size
    con.execute("CREATE TABLE plane.t (id BIGINT, s VARCHAR)")
    con.execute(f"INSERT INTO plane.t SELECT i, md5(i::VARCHAR) FROM range({n}) r(i)")
    got = con.execute("SELECT count(*), sum(id) FROM plane.t").fetchone()
    check(f"{n} rows written through the endpoint read back", got == (n, n * (n - 1) // 2), got)
    got = con.execute("SELECT id FROM plane.t WHERE s = md5('77')").fetchall()
    check("a filtered scan (ranged GETs) finds its row", got == [(77,)], got)
    con.execute("DELETE FROM plane.t WHERE id < 100")
    con.execute("UPDATE plane.t SET s = 'changed' WHERE id = 500")
    got = con.execute("SELECT count(*), sum(id), count(*) FILTER (s = 'changed') FROM plane.t").fetchone()
    want = (n - 100, n * (n - 1) // 2 - 4950, 1)
    check("UPDATE and DELETE (delete files through the endpoint)", got == want, [got, want])
    con.execute(f"INSERT INTO plane.t SELECT i, 'b' FROM range({n}, {n} + 5000) r(i)")
    con.execute("CALL ducklake_merge_adjacent_files('plane')")
    got = con.execute("SELECT count(*), sum(id) FROM plane.t").fetchone()
    want = (want[0] + 5000, want[1] + sum(range(n, n + 5000)))
    check("ducklake_merge_adjacent_files keeps every row", got == want, [got, want])

    # The writer's own flush_inlined, then a DuckDB read of its file (decision 0501's point).
    con.execute("CREATE TABLE plane.small (id INTEGER, v VARCHAR)")
    for i in range(12):
        con.execute(f"INSERT INTO plane.small VALUES ({i}, 'v{i}')")
    status, ran = api(port, "POST", f"/v1/lakes/{lake}/maintenance", {"jobs": ["flush_inlined"]})
    runs = ran.get("runs", []) if isinstance(ran, dict) else []
    check("the writer's flush_inlined ran without error and wrote a file",
          status == 200 and runs and all(r["error"] is None for r in runs) and sum(r["filesOut"] for r in runs) >= 1,
          [status, ran])
    con2, _ = recipe_session(port, lake)
    got = con2.execute("SELECT count(*), sum(id) FROM plane.small").fetchone()
    check("DuckDB reads the writer's flushed file", got == (12, 66), got)
    files = con2.execute("SELECT count(*) FROM ducklake_list_files('plane', 'small')").fetchone()[0]
    check("the flushed rows are in a Parquet file", files >= 1, files)

    # The rows API reads DuckDB's files; DuckDB reads the rows flusher's.
    status, rows = all_rows(port, lake, "small")
    check("the rows API reads the writer's file", status == 200 and sorted(r["id"] for r in rows) == list(range(12)),
          [status, rows if status != 200 else len(rows)])
    con.execute("CREATE TABLE plane.mid (id INTEGER, v VARCHAR)")
    con.execute("INSERT INTO plane.mid SELECT i, 'm' || i FROM range(3000) r(i)")
    status, rows = all_rows(port, lake, "mid")
    check("the rows API reads DuckDB's Parquet (3,000 rows)",
          status == 200 and sorted(r["id"] for r in rows) == list(range(3000)), [status, len(rows) if status == 200 else rows])
    ops = [{"op": "insert", "row": {"id": 10_000 + i, "v": f"r{i}"}} for i in range(2000)]
    status, wrote = api(port, "POST", f"/v1/lakes/{lake}/tables/main/mid/rows", {"ops": ops})
    check("the rows API takes 2,000 rows", status == 200, [status, wrote])
    status, flushed = api(port, "POST", f"/v1/lakes/{lake}/flush", {})
    check("the rows flusher drains them", status == 200 and flushed.get("records", 0) >= 2000, [status, flushed])
    con3, _ = recipe_session(port, lake)
    got = con3.execute("SELECT count(*), sum(id) FROM plane.mid").fetchone()
    want = (5000, sum(range(3000)) + sum(range(10_000, 12_000)))
    check("DuckDB reads the rows flusher's rows", got == want, [got, want])
    status, rows = all_rows(port, lake, "mid")
    check("the same rows in the rows API", status == 200 and len(rows) == 5000, [status, len(rows) if status == 200 else rows])

    # Cleanup of old files: a dropped table's files, once its snapshots expire, leave the lake's prefix.
    con3.execute("CREATE TABLE plane.gone (id INTEGER)")
    con3.execute("INSERT INTO plane.gone SELECT i FROM range(50000) r(i)")
    con3.execute("DROP TABLE plane.gone")
    before = con3.execute("SELECT count(*) FROM glob('r2://ducklake-edge/lakes/plane/data/**')").fetchone()[0]
    con3.execute("CALL ducklake_expire_snapshots('plane', older_than => now() + INTERVAL 1 SECOND)")
    cleaned = con3.execute("CALL ducklake_cleanup_old_files('plane', cleanup_all => true)").fetchall()
    after = con3.execute("SELECT count(*) FROM glob('r2://ducklake-edge/lakes/plane/data/**')").fetchone()[0]
    check("ducklake_cleanup_old_files deletes the old files through the endpoint",
          len(cleaned) > 0 and after == before - len(cleaned), [before, len(cleaned), after])
    got = con3.execute("SELECT count(*) FROM plane.t").fetchone()[0]
    check("the table reads the same after cleanup", got == n - 100 + 5000, got)
    for c in (con, con2, con3):
        c.close()


def the_local_directory(port, inserts):
    """The README's old local recipe: an external data path keeps working for DuckDB after the lake's maintenance."""
    lake = "localdir"
    work = tempfile.mkdtemp(prefix="data-plane-local-")
    con = suite.connect()
    con.execute(f"CREATE SECRET localdir_quack (TYPE quack, TOKEN '{lake}:{TOKEN}', SCOPE 'quack:127.0.0.1:{port}/{lake}')")
    con.execute(f"ATTACH 'ducklake:quack:127.0.0.1:{port}/{lake}' AS localdir (DATA_PATH '{work}/')")
    con.execute("CREATE TABLE localdir.t (id INTEGER, v VARCHAR)")
    for i in range(inserts):
        con.execute(f"INSERT INTO localdir.t VALUES ({i}, 'v{i}')")
    con.execute("INSERT INTO localdir.t SELECT i, 'bulk' FROM range(1000, 4000) r(i)")  # a Parquet file of DuckDB's
    status, ran = api(port, "POST", f"/v1/lakes/{lake}/maintenance", {})
    status2, ran2 = api(port, "POST", f"/v1/lakes/{lake}/maintenance",
                        {"jobs": ["flush_inlined", "merge_adjacent", "rewrite_deletes", "expire_snapshots", "delete_files"]})
    runs = ran2.get("runs", []) if isinstance(ran2, dict) else []
    off = [r for r in runs if r["job"] in ("flush_inlined", "merge_adjacent", "rewrite_deletes", "delete_files")]
    check("the file jobs say why they are off (external data path)",
          status == 200 and status2 == 200 and len(off) == 4 and all("external" in (r["error"] or "") for r in off),
          [status, ran, status2, ran2])
    fresh = suite.connect()
    fresh.execute(f"CREATE SECRET localdir_quack (TYPE quack, TOKEN '{lake}:{TOKEN}', SCOPE 'quack:127.0.0.1:{port}/{lake}')")
    fresh.execute(f"ATTACH 'ducklake:quack:127.0.0.1:{port}/{lake}' AS localdir")
    want = (inserts + 3000, sum(range(inserts)) + sum(range(1000, 4000)))
    try:
        got = fresh.execute("SELECT count(*), sum(id) FROM localdir.t").fetchone()
    except Exception as e:  # noqa: BLE001 - the regression is exactly this failing
        got = str(e)
    check(f"after {inserts} inserts and the lake's maintenance DuckDB reads every row", got == want, [got, want])
    status, summary = api(port, "GET", f"/v1/lakes/{lake}")
    check("the summary names the external data path", status == 200 and "external" in (summary.get("dataPathExternal") or ""),
          [status, summary])
    status, refused = api(port, "POST", f"/v1/lakes/{lake}/tables/main/t/rows", {"ops": [{"op": "insert", "row": {"id": 1, "v": "x"}}]})
    check("row writes are refused naming why", status == 422 and "external" in json.dumps(refused), [status, refused])
    status, read = api(port, "GET", f"/v1/lakes/{lake}/tables/main/t/rows?limit=10")
    check("row reads never read a file from R2 in the directory's place (refused, not Corruption)",
          status == 422 and "external" in json.dumps(read), [status, read])
    con.close()
    fresh.close()


def the_orphan_listing(port):
    """`ducklake_delete_orphaned_files` on a lake's own prefix (docs/decisions/0630): the client globs the
    prefix through the S3 endpoint and deletes what the listing does not name; the listing names every
    upload younger than the grace, so a transaction's upload in flight is kept and a true orphan goes."""
    lake = "orphans"
    a, _ = recipe_session(port, lake)
    b, _ = recipe_session(port, lake)
    status, summary = api(port, "GET", f"/v1/lakes/{lake}")
    data_path = summary["dataPath"] if status == 200 else None
    check("the orphans lake is on its own prefix", data_path and data_path.startswith("r2://")
          and not summary.get("dataPathExternal"), summary)
    parquet = lambda con: sorted(r[0] for r in con.execute(f"SELECT file FROM glob('{data_path}**/*.parquet')").fetchall())
    a.execute(f"CREATE TABLE {lake}.t (i BIGINT)")
    a.execute(f"INSERT INTO {lake}.t SELECT * FROM range(5000)")
    committed = parquet(b)
    # The in-flight upload: a transaction that wrote its Parquet through the endpoint and has not committed.
    a.execute("BEGIN")
    a.execute(f"INSERT INTO {lake}.t SELECT * FROM range(5000, 12000)")
    in_flight = sorted(set(parquet(b)) - set(committed))
    check("the open transaction's upload is in the prefix", len(in_flight) >= 1, in_flight)
    # A true orphan: an object no commit will ever name.
    junk = f"{data_path}main/t/junk-orphan.parquet"
    b.execute(f"COPY (SELECT 1 AS x) TO '{junk}' (FORMAT parquet)")
    got = [r[0] for r in b.execute(f"CALL ducklake_delete_orphaned_files('{lake}', cleanup_all => true)").fetchall()]
    left = parquet(b)
    check("cleanup_all keeps the upload in flight and every registered file",
          all(p in left for p in in_flight + committed) and not any(p in got for p in in_flight + committed),
          {"deleted": got, "in_flight": in_flight})
    check("an orphan within the grace is kept too (it may be a commit in flight)", junk in left, got)
    a.execute("COMMIT")
    got_rows = a.execute(f"SELECT count(*), sum(i) FROM {lake}.t").fetchone()
    check("the in-flight transaction commits and reads every row after the CALL", got_rows == (12000, 71994000), got_rows)
    # The lake's grace set to nothing: the junk object is past it, a true orphan, and deleted.
    b.execute(f"CALL {lake}.set_option('delete_older_than', '0 seconds')")
    got = [r[0] for r in b.execute(f"CALL ducklake_delete_orphaned_files('{lake}', cleanup_all => true)").fetchall()]
    left = parquet(b)
    check("an orphan past the grace is deleted, and only it", got == [junk] and junk not in left, {"deleted": got, "left": left})
    c, _ = recipe_session(port, lake)
    got_rows = c.execute(f"SELECT count(*), sum(i) FROM {lake}.t").fetchone()
    check("every row reads after the orphan is gone (a new session)", got_rows == (12000, 71994000), got_rows)
    b.execute("CHECKPOINT")
    got_rows = c.execute(f"SELECT count(*), sum(i) FROM {lake}.t").fetchone()
    check("CHECKPOINT runs on the lake's own prefix and every row still reads", got_rows == (12000, 71994000), got_rows)
    for con in (a, b, c):
        con.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--inserts", type=int, default=30)
    ap.add_argument("--part", choices=["all", "plane", "orphans", "local"], default="all")
    args = ap.parse_args()
    take = suite.port_source()
    port, inspector = take(), take()
    work = tempfile.mkdtemp(prefix="data-plane-")
    suite.start_wrangler(port, inspector, f"{work}/state", f"{work}/wrangler.log", server_commit=True)
    try:
        if args.part in ("all", "plane"):
            the_lake_plane(port, args.rows)
        if args.part in ("all", "orphans"):
            the_orphan_listing(port)
        if args.part in ("all", "local"):
            the_local_directory(port, args.inserts)
    finally:
        errors = [l for l in open(f"{work}/wrangler.log") if '"status":5' in l]
        check("no 5xx from the Worker", not errors, errors[:3])
    if FAILURES:
        sys.exit(f"data plane: {len(FAILURES)} check(s) failed: {FAILURES}; wrangler log {work}/wrangler.log")
    print("data plane: every check passed")


if __name__ == "__main__":
    try:
        main()
    finally:
        suite.stop_all()
