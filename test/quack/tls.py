"""Quack over TLS, end to end (issue 11, docs/decisions/0204-quack-over-tls.md): stock DuckDB 1.5.5 attaches a
lake served by `wrangler dev --local-protocol https` and runs the README's deployed session — the recipe from
`GET /v1/lakes/{lake}/quack`, the secret, ATTACH, CREATE TABLE, INSERT, SELECT, time travel — exactly as it would
against `wrangler deploy`, then proves the connection was TLS and that the client checked the certificate.

- A throwaway CA and a server certificate for the host and 127.0.0.1 are made with the openssl CLI.
- The host is a name that resolves to 127.0.0.1 but that DuckDB does not count as local (only localhost,
  127.0.0.1 and ::1 are), e.g. `vm` from /etc/hosts: DuckDB then picks SSL by itself, as for a Worker's host.
  Without such a name the session runs against 127.0.0.1 with `META_DISABLE_SSL false` (forced SSL).
- Port 443 when this process may bind it (root, free), else one from QUACK_TEST_PORTS (or a free one).
- QUACK_TLS_HOST=<name> picks the host (127.0.0.1: the forced-SSL path); QUACK_TLS_NO_443=1 skips port 443.
- DuckDB trusts the CA through `SET GLOBAL ca_cert_file` (its curl client ignores SSL_CERT_FILE and a
  session-level SET; decision 0204).

    python3 test/quack/tls.py [--keep]

Every process it starts runs under `timeout` in its own process group and is killed when the run ends.
"""
import argparse, json, os, shutil, signal, socket, ssl, subprocess, sys, tempfile, time, urllib.error
import urllib.request

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import run as suite  # noqa: E402  (connect, port_source, STARTED / stop_all)

TOKEN = "quack-tls-dev-token-0123456789"
LAKE = "shop"
# Bounds: wrangler's start, the whole run (the alarm), one HTTP call, one openssl call.
WRANGLER_READY_S = 120
RUN_TIMEOUT_S = 300
HTTP_TIMEOUT_S = 30
OPENSSL_TIMEOUT_S = 60
# Quack's rule (duckdb-quack src/include/quack_uri.hpp, QuackUri::IsLocal): these get plain HTTP by default.
DUCKDB_LOCAL = {"localhost", "127.0.0.1", "::1"}


def non_local_loopback_name():
    """A host name (from /etc/hosts) that resolves to 127.0.0.1 and that DuckDB does not count as local."""
    try:
        with open("/etc/hosts") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split("#")[0].split()
        if len(fields) < 2 or fields[0] != "127.0.0.1":
            continue
        for name in fields[1:]:
            if name.lower() in DUCKDB_LOCAL or not all(c.isalnum() or c in "-." for c in name):
                continue
            try:
                if socket.gethostbyname(name) == "127.0.0.1":
                    return name
            except OSError:
                continue
    return None


def make_certs(d, host):
    """A throwaway CA and a server certificate it signs, valid for `host` and 127.0.0.1 (one day)."""
    def openssl(*args):
        subprocess.run(["timeout", str(OPENSSL_TIMEOUT_S), "openssl", *args], cwd=d, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "1",
            "-subj", "/CN=ducklake-edge throwaway test CA", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", f"/CN={host}")
    with open(f"{d}/server.ext", "w") as f:
        f.write(f"subjectAltName=DNS:{host},IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.pem", "-days", "1", "-extfile", "server.ext")
    return f"{d}/ca.pem", f"{d}/server.key", f"{d}/server.pem"


def pick_port(take_port):
    """443 when this process may bind it (as `wrangler deploy` serves), else an assigned port."""
    if os.environ.get("QUACK_TLS_NO_443"):
        return take_port(), "assigned (QUACK_TLS_NO_443 set)"
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", 443))
            return 443, "443 (as a deployed Worker)"
        except OSError as e:
            why = "not root" if os.geteuid() != 0 else f"in use or refused ({e.strerror})"
    return take_port(), f"assigned (443 not usable: {why})"


def start_wrangler_https(port, inspector, state_dir, log_path, key, cert, ca):
    cmd = ["npx", "wrangler", "dev", "--local", "--ip", "127.0.0.1", "--port", str(port),
           "--inspector-port", str(inspector), "--persist-to", state_dir, "--show-interactive-dev-session=false",
           "--local-protocol", "https", "--https-key-path", key, "--https-cert-path", cert,
           "--var", "DEV_AUTH:enabled", "--var", f"DEV_TOKEN:{TOKEN}"]
    log = open(log_path, "w")
    p = subprocess.Popen(["timeout", str(RUN_TIMEOUT_S), *cmd], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    suite.STARTED.append(p)
    context = ssl.create_default_context(cafile=ca)
    deadline = time.time() + WRANGLER_READY_S
    while time.time() < deadline:
        if p.poll() is not None:
            raise RuntimeError(f"wrangler dev exited ({p.returncode}); see {log_path}")
        try:
            with urllib.request.urlopen(f"https://127.0.0.1:{port}/", timeout=2, context=context) as r:
                if r.status == 200:
                    return p
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.5)
    raise RuntimeError(f"wrangler dev (https) not ready after {WRANGLER_READY_S}s; see {log_path}")


def https(base, ca, method, path, body=None):
    req = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"authorization": f"Bearer {TOKEN}", "content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=HTTP_TIMEOUT_S, context=ssl.create_default_context(cafile=ca)) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()[:300]


def client(ca=None):
    """A fresh stock DuckDB instance (its own HTTP clients); `ca` is the only CA it trusts besides the system's."""
    con = suite.connect()
    if ca:
        con.execute(f"SET GLOBAL ca_cert_file = '{ca}'")
    return con


def attach_error(con, secret, attach):
    """The error text of this secret + ATTACH, or None when it attached."""
    try:
        con.execute(secret)
        con.execute(attach)
        return None
    except duckdb.Error as e:
        return str(e)
    finally:
        con.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()
    signal.alarm(RUN_TIMEOUT_S)
    work = tempfile.mkdtemp(prefix="quack-tls-")
    take_port = suite.port_source()
    problems = []

    def check(name, ok, got):
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
        if not ok:
            problems.append({"check": name, "got": got})

    try:
        forced_host = os.environ.get("QUACK_TLS_HOST")  # 127.0.0.1 exercises the forced-SSL path
        name = non_local_loopback_name() if forced_host is None else (
            None if forced_host in DUCKDB_LOCAL else forced_host)
        host = name or "127.0.0.1"
        ca, key, cert = make_certs(work, host)
        port, port_why = pick_port(take_port)
        print(f"quack tls: host {host} ({'SSL by DuckDB default' if name else 'SSL forced'}), port {port_why}")
        start_wrangler_https(port, take_port(), f"{work}/state", f"{work}/wrangler.log", key, cert, ca)
        base = f"https://{host}" + ("" if port == 443 else f":{port}")

        # The README's deployed steps: create the lake with its data path, ask the Worker what to type.
        status, body = https(base, ca, "PUT", f"/v1/lakes/{LAKE}", {"dataPath": f"{work}/data/"})
        check("PUT /v1/lakes/shop over https", status == 201, [status, body])
        status, recipe = https(base, ca, "GET", f"/v1/lakes/{LAKE}/quack")
        target = f"quack:{host}:{port}/{LAKE}"
        forced = "" if name else " (META_DISABLE_SSL false)"
        want = {"secret": f"CREATE SECRET {LAKE}_quack (TYPE quack, TOKEN '{LAKE}:<token>', SCOPE '{target}');",
                "attach": f"ATTACH 'ducklake:{target}' AS {LAKE}{forced};"}
        got = {k: recipe.get(k) for k in want} if isinstance(recipe, dict) else recipe
        check("GET /v1/lakes/shop/quack answers the TLS recipe for this host", [status, got] == [200, want],
              [status, recipe])
        secret = want["secret"].replace("<token>", TOKEN)
        attach = want["attach"]

        # The session, statement by statement, through the pasted recipe.
        con = client(ca)
        try:
            con.execute(secret)
            con.execute(attach)
            con.execute("CREATE TABLE shop.orders (id INTEGER, item VARCHAR)")
            con.execute("INSERT INTO shop.orders VALUES (1, 'apple'), (2, 'pear')")
            first = con.execute("SELECT * FROM shop.orders ORDER BY id").fetchall()
            version = con.execute("SELECT id FROM shop.current_snapshot()").fetchone()[0]
            con.execute("INSERT INTO shop.orders VALUES (3, 'plum')")
            now = con.execute("SELECT * FROM shop.orders ORDER BY id").fetchall()
            then = con.execute(f"SELECT * FROM shop.orders AT (VERSION => {version}) ORDER BY id").fetchall()
            snapshots = con.execute("SELECT count(*) FROM shop.snapshots()").fetchone()[0]
            check("session over TLS: CREATE TABLE, INSERT, SELECT, time travel",
                  first == [(1, "apple"), (2, "pear")] and now == first + [(3, "plum")] and then == first
                  and snapshots == 4, {"first": first, "now": now, "then": then, "snapshots": snapshots})
        except duckdb.Error as e:
            check("session over TLS", False, str(e))
        finally:
            con.close()

        # It was TLS: the same port refuses plain HTTP Quack.
        plain = attach_error(client(ca), secret, f"ATTACH 'ducklake:{target}' AS {LAKE} (META_DISABLE_SSL true)")
        check("plain-HTTP ATTACH to the TLS port fails", plain is not None and f"'http://{host}:{port}/quack'" in plain,
              plain)
        # The client verified the certificate: without the CA the system store refuses it ...
        untrusted = attach_error(client(), secret, attach)
        check("ATTACH without the CA fails certificate verification",
              untrusted is not None and "SSL peer certificate" in untrusted, untrusted)
        # ... and with the CA, a name the certificate does not carry is refused too.
        other = attach_error(client(ca), secret.replace(f"quack:{host}:", "quack:localhost:"),
                             f"ATTACH 'ducklake:quack:localhost:{port}/{LAKE}' AS {LAKE} (META_DISABLE_SSL false)")
        check("ATTACH to a host name outside the certificate fails", other is not None and "SSL peer" in other, other)
        with open(f"{work}/wrangler.log") as f:
            log = f.read()
        check("wrangler served https", f"Ready on https://127.0.0.1:{port}" in log, log[-2000:])
    finally:
        suite.stop_all()
        if args.keep or problems:
            print(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if problems:
        print(json.dumps(problems, indent=1, default=str)[:6000])
    print(f"quack tls: {'FAIL' if problems else 'ok'}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
