"""One sqllogictest file, run the way DuckDB 1.5.5's own runner (test/sqlite/sqllogic_*.cpp) runs it, with
stock DuckDB 1.5.5 from PyPI as the client. Written from that runner's documented behaviour, not copied:

- records are separated by blank or `#` lines; `statement ok|error|maybe [con]`, `query <TIR..> [sort|con]
  [label]`, `----` then the expected error (statement) or values (query) up to the next blank line;
- `skipif`/`onlyif` with loop conditions (`i=0`, `i>25`, `&&`), `loop`/`foreach`/`endloop`, `concurrentloop`
  and `concurrentforeach` (each iteration a thread with its own connection), `mode skip`/`mode unskip`,
  `require` (a missing extension skips the file), `test-env` (the configuration's value wins), `restart`,
  `reconnect`, `unzip`, `sleep`, `halt`, `hash-threshold`, `continue`;
- `${NAME}`/`{NAME}` environment and loop replacement, then `{TEST_DIR}`, `__TEST_DIR__`, `{UUID}` (a fresh
  UUID at every replacement, as 1.5.5 does), `{TEST_NAME}`, `{BASE_TEST_NAME}`;
- values rendered as the runner renders them: NULL, `(empty)` for '', BOOLEAN as 1/0, everything else
  DuckDB's own cast to VARCHAR (done by DuckDB, in the test's connection, over an Arrow copy of the result:
  exact for every type with `arrow_lossless_conversion`); sort modes; `N values hashing to <md5>`; numeric
  and boolean tolerance as the runner compares them; `<REGEX>:`/`<!REGEX>:`.

The outcome is a dict: status pass/fail/skip, the first failing record (`file:line`), and what differed.
"""
from __future__ import annotations

import gzip, hashlib, os, re, shutil, threading, time, uuid
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

import duckdb


class SkipFile(Exception):
    """The file is skipped (a `require` not available), as sqllogictest skips it."""


class RecordFailed(Exception):
    def __init__(self, line: int, kind: str, sql: str, detail: str):
        super().__init__(detail)
        self.line, self.kind, self.sql, self.detail = line, kind, sql, detail


# ------------------------------------------------------------------------------------------------ parsing
@dataclass
class Record:
    kind: str  # statement | query | loop | require | test-env | mode | restart | reconnect | unzip | sleep | ...
    line: int
    params: list[str]
    sql: str = ""
    expected: list[str] = field(default_factory=list)
    expected_error: str = ""
    conditions: list[tuple[str, str, str, bool]] = field(default_factory=list)
    body: list["Record"] = field(default_factory=list)  # loops


def empty_or_comment(line: str) -> bool:
    return line == "" or line.startswith("#")


CONDITION_OPS = ["<>", ">=", ">", "<=", "<", "="]


def parse_conditions(text: str, skip_if: bool) -> list[tuple[str, str, str, bool]] | None:
    if not any(c in text for c in "=<>"):
        return None
    out = []
    for part in text.split("&&"):
        for op in CONDITION_OPS:
            if op in part:
                k, v = part.split(op, 1)
                out.append((k.strip(), op, v.strip(), skip_if))
                break
    return out


class Parser:
    def __init__(self, path: str):
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            self.lines = [ln.rstrip("\n").replace("\r", "") for ln in f]
        self.i = 0

    def records(self):
        """Yields top-level records in order; loops carry their bodies."""
        stack: list[Record] = []
        while True:
            rec = self.next_record()
            if rec is None:
                break
            if rec.kind == "skip":
                continue
            if rec.kind in ("loop", "foreach", "concurrentloop", "concurrentforeach"):
                stack.append(rec)
                continue
            if rec.kind == "endloop":
                loop = stack.pop()
                if stack:
                    stack[-1].body.append(loop)
                else:
                    yield loop
                continue
            if stack:
                stack[-1].body.append(rec)
            else:
                yield rec

    def next_record(self) -> Record | None:
        lines = self.lines
        while self.i < len(lines) and empty_or_comment(lines[self.i]):
            self.i += 1
        if self.i >= len(lines):
            return None
        conditions: list = []
        skip = False
        while True:
            tokens = lines[self.i].split()
            if tokens[0] in ("skipif", "onlyif"):
                skip_if = tokens[0] == "skipif"
                conds = parse_conditions(tokens[1].lower(), skip_if)
                if conds is None:
                    # a system name: only `duckdb` is ours
                    if (tokens[1].lower() == "duckdb") == skip_if:
                        skip = True
                else:
                    conditions += conds
                self.i += 1
                continue
            break
        line_no = self.i + 1
        cmd, params = tokens[0], tokens[1:]
        self.i += 1
        rec = Record(cmd, line_no, params, conditions=conditions)
        if cmd in ("statement", "query"):
            sql_lines = []
            while self.i < len(lines) and not empty_or_comment(lines[self.i]) and lines[self.i] != "----":
                sql_lines.append(lines[self.i])
                self.i += 1
            rec.sql = "\n".join(sql_lines)
            if self.i < len(lines) and lines[self.i] == "----":
                self.i += 1
                vals = []
                while self.i < len(lines) and lines[self.i] != "":
                    vals.append(lines[self.i])
                    self.i += 1
                if cmd == "statement":
                    rec.expected_error = "\n".join(vals)
                else:
                    rec.expected = vals
        else:
            # single-line commands: skip to the end of the record
            while self.i < len(lines) and not empty_or_comment(lines[self.i]):
                self.i += 1
        if skip:
            rec.kind = "skip"
        return rec


# ------------------------------------------------------------------------------------------------ values
def py_text(v, top: bool = True) -> str:
    """DuckDB's VARCHAR text of a Python value, for the results Arrow cannot carry (VARIANT): nested values
    render as DuckDB renders them (`[1, 2]`, `{'a': 1}`), strings inside them quoted."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        r = repr(v)
        return {"inf": "inf", "-inf": "-inf", "nan": "nan"}.get(r, r)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(py_text(x, False) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"'{k}': {py_text(x, False)}" for k, x in v.items()) + "}"
    if isinstance(v, str) and not top:
        return "'" + v.replace("'", "''") + "'" if v == "" or re.search(r"[\s,'\[\]{}:]", v) else v
    return str(v)


def render(con, sql_types: list[str]) -> tuple[list[str], int, list[str]]:
    """The current result of `con` as the runner's strings (row-major), its column count and names."""
    if any("VARIANT" in t for t in sql_types):
        names = [d[0] for d in con.description]
        rows = con.fetchall()
        out = []
        for r in rows:
            for v, t in zip(r, sql_types):
                s = "NULL" if v is None else ("1" if v else "0") if t == "BOOLEAN" else py_text(v)
                out.append("(empty)" if s == "" else s)
        return out, len(names), names
    tbl = con.to_arrow_table()
    names = tbl.column_names
    ncols = len(names)
    if tbl.num_rows == 0:
        return [], ncols, names
    rel = con.from_arrow(tbl.rename_columns([f"c{i}" for i in range(ncols)]))
    proj = []
    for i, t in enumerate(sql_types):
        if t == "BOOLEAN":
            proj.append(f"CASE WHEN c{i} THEN '1' ELSE '0' END")
        else:
            proj.append(f"CAST(c{i} AS VARCHAR)")
    rows = rel.project(", ".join(proj)).fetchall()
    out = []
    for r in rows:
        for v in r:
            if v is None:
                out.append("NULL")
            elif v == "":
                out.append("(empty)")
            else:
                out.append(v.replace("\0", "\\0"))
    return out, ncols, names


NUMERIC_RE = re.compile(r"^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|"
                        r"FLOAT|DOUBLE|DECIMAL.*)$")


def _num(s: str, sql_type: str):
    if s == "NULL":
        return "NULL"
    try:
        if sql_type in ("FLOAT", "DOUBLE"):
            return float(s)
        d = Decimal(s)
        m = re.match(r"DECIMAL\((\d+),(\d+)\)", sql_type)
        if m:
            return d.quantize(Decimal(1).scaleb(-int(m.group(2))))
        return d.to_integral_value()
    except (InvalidOperation, ValueError):
        return None


def regex_matches(value: str, pattern: str) -> bool:
    want = pattern.startswith("<REGEX>:")
    rx = pattern.replace("<REGEX>:", "", 1) if want else pattern.replace("<!REGEX>:", "", 1)
    try:
        hit = re.fullmatch(rx, value, re.S) is not None
    except re.error:
        return False
    return hit == want


def values_equal(got: str, want: str, sql_type: str, replace) -> bool:
    if got == want or got == replace(want):
        return True
    if want.startswith("<REGEX>:") or want.startswith("<!REGEX>:"):
        if regex_matches(got, want):
            return True
    if NUMERIC_RE.match(sql_type):
        a, b = _num(got, sql_type), _num(want, sql_type)
        return a is not None and b is not None and a == b
    if sql_type == "BOOLEAN":
        def b(s):
            return 1 if s.lower() == "true" or s == "1" else 0 if s.lower() == "false" or s == "0" else s
        return b(got) == b(want)
    return False


def result_is_hash(s: str) -> bool:
    return re.fullmatch(r"\d+ values hashing to [0-9a-z]{32}", s) is not None


# ------------------------------------------------------------------------------------------------ running
@dataclass
class Config:
    """What the configuration (test/configs/quack.json) and the target give one file."""
    suite_root: str          # cwd of the test: `data/...` paths are relative to it
    test_dir: str            # {TEST_DIR} / __TEST_DIR__ of this file (fresh, writable)
    on_init: str             # run on every new main connection
    test_env: dict[str, str]
    extensions: dict[str, str]   # name -> file to LOAD (or "" for built into the wheel)
    available: set[str]          # what `require` finds
    statically_loaded: list[str]


class Loop:
    def __init__(self, name: str, idx: int, tokens: list[str] | None):
        self.name, self.idx, self.tokens = name, idx, tokens

    def value(self) -> str:
        return str(self.idx) if self.tokens is None else self.tokens[self.idx]


class FileRunner:
    def __init__(self, path: str, rel: str, cfg: Config, deadline: float):
        self.path, self.rel, self.cfg, self.deadline = path, rel, cfg, deadline
        self.env: dict[str, str] = {}
        self.labels: dict[str, str] = {}
        self.hash_threshold = 0
        self.skip_level = 0
        self.finished = False
        self.lock = threading.Lock()
        self.db = None
        self.named: dict[str, object] = {}
        self.executed = 0

    # -- connections
    def new_database(self):
        for c in list(self.named.values()):
            try:
                c.close()
            except duckdb.Error:
                pass
        self.named = {}
        if self.db is not None:
            try:
                self.db.close()
            except duckdb.Error:
                pass
        os.makedirs(os.path.join(self.cfg.test_dir, ".tmp"), exist_ok=True)
        self.db = duckdb.connect(":memory:", config={
            "allow_unsigned_extensions": "true", "autoinstall_known_extensions": "false",
            "autoload_known_extensions": "false", "temp_directory": os.path.join(self.cfg.test_dir, ".tmp"),
            "secret_directory": os.path.join(self.cfg.test_dir, "test_secret_dir")})
        for name in self.cfg.statically_loaded:
            f = self.cfg.extensions.get(name)
            if f:
                self.db.execute(f"LOAD '{f}'")
        self.init_connection(self.db)

    def init_connection(self, con):
        con.execute("SET arrow_lossless_conversion = true")
        if self.cfg.on_init:
            con.execute(self.replace_keywords(self.cfg.on_init))

    def connection(self, name: str | None, thread_con=None):
        if thread_con is not None:
            if name:
                raise RuntimeError("Named connections not supported in parallel loop")
            return thread_con
        if not name:
            return self.db
        if name not in self.named:
            c = self.db.cursor()
            c.execute("SET arrow_lossless_conversion = true")
            self.named[name] = c
        return self.named[name]

    # -- replacement
    def replace_keywords(self, text: str) -> str:
        for k, v in self.env.items():
            text = text.replace("${" + k + "}", v).replace("{" + k + "}", v)
        text = text.replace("{TEST_DIR}", self.cfg.test_dir)
        text = text.replace("{UUID}", str(uuid.uuid4()))
        text = text.replace("{TEST_NAME}", self.rel)
        text = text.replace("{BASE_TEST_NAME}", self.rel.replace("/", "_"))
        text = text.replace("__TEST_DIR__", self.cfg.test_dir)
        text = text.replace("__WORKING_DIRECTORY__", self.cfg.suite_root)
        return text

    @staticmethod
    def loop_replace(text: str, loops: list[Loop]) -> str:
        for lp in loops:
            names = lp.name.split(",")
            vals = lp.value().split(",") if len(names) > 1 else [lp.value()]
            for n, v in zip(names, vals):
                text = text.replace("${" + n + "}", v).replace("{" + n + "}", v)
        return text

    # -- the file
    def run(self) -> dict:
        self.new_database()
        parser = Parser(self.path)
        for rec in parser.records():
            if self.finished:
                break
            # records are processed in order, as the C++ runner does (keywords replaced when met)
            if rec.kind == "halt":
                break
            self.top_level(rec)
        return {"status": "pass", "executed": self.executed}

    def top_level(self, rec: Record):
        kind = rec.kind
        if self.skip_level > 0 and kind != "mode":
            return
        if kind == "require":
            self.require(rec.params)
        elif kind == "test-env":
            name, default = rec.params[0], rec.params[1]
            self.env[name] = self.cfg.test_env.get(name, default)
        elif kind == "require-env":
            name = rec.params[0]
            if name in self.cfg.test_env:
                val = self.cfg.test_env[name]
            elif os.environ.get(name) is not None:
                val = os.environ[name]
            else:
                raise SkipFile(f"require-env {name}")
            if len(rec.params) == 2 and val != rec.params[1]:
                raise SkipFile(f"require-env {name} {rec.params[1]}")
            self.env[name] = val
        elif kind == "mode":
            if rec.params[0] == "skip":
                self.skip_level += 1
            elif rec.params[0] == "unskip":
                self.skip_level -= 1
        elif kind == "hash-threshold":
            self.hash_threshold = int(rec.params[0])
        elif kind == "set":
            if rec.params and rec.params[0] == "seed":
                self.db.execute(f"SELECT setseed({float(rec.params[1])})")
        elif kind in ("tags", "load", "include"):
            if kind == "load":
                raise RecordFailed(rec.line, kind, "", "the `load` command is not supported by this runner")
        else:
            self.execute(self.prepare(rec), [], None)

    def prepare(self, rec: Record) -> Record:
        """Keyword replacement at parse time (loop bodies included), as the C++ runner does."""
        if rec.kind in ("statement", "query"):
            rec.sql = self.replace_keywords(rec.sql)
        elif rec.kind == "unzip":
            rec.params = [self.replace_keywords(p) for p in rec.params]
        for b in rec.body:
            self.prepare(b)
        return rec

    def require(self, params: list[str]):
        name = params[0].lower()
        if name in ("notwindows", "notmusl", "notmingw", "64bit", "no_alternative_verify", "nothreadsan",
                    "strinline", "noforcestorage", "no_force_storage", "no_latest_storage",
                    "no_vector_verification", "skip_reload", "allow_unsigned_extensions"):
            return
        if name in ("windows", "mingw", "longdouble", "ram", "disk_space", "block_size", "exact_vector_size"):
            raise SkipFile(f"require {name}")
        if name == "vector_size":
            if 2048 < int(params[1]):
                raise SkipFile(f"require {name}")
            return
        if name == "no_extension_autoloading":
            return  # autoloading is off ("autoloading": "none")
        if name not in self.cfg.available:
            raise SkipFile(f"require {name}")
        f = self.cfg.extensions.get(name)
        if f:
            self.db.execute(f"LOAD '{f}'")

    # -- commands
    def check_conditions(self, rec: Record, loops: list[Loop]) -> bool:
        for key, op, val, skip_if in rec.conditions:
            lp = next((lp for lp in loops if lp.name == key), None)
            if lp is None:
                raise RecordFailed(rec.line, rec.kind, rec.sql, f"condition on unknown loop variable {key}")
            v = lp.value()
            if op in ("=", "<>"):
                holds = (v == val) if op == "=" else (v != val)
            else:
                a, b = int(v), int(val)
                holds = {">": a > b, "<": a < b, ">=": a >= b, "<=": a <= b}[op]
            if holds == skip_if:
                return False
        return True

    def execute(self, rec: Record, loops: list[Loop], thread_con):
        if self.finished:
            return
        if time.monotonic() > self.deadline:
            raise RecordFailed(rec.line, rec.kind, rec.sql, "file time limit reached")
        if not self.check_conditions(rec, loops):
            return
        kind = rec.kind
        if kind in ("loop", "foreach", "concurrentloop", "concurrentforeach"):
            self.run_loop(rec, loops, thread_con)
        elif kind == "statement":
            self.statement(rec, loops, thread_con)
        elif kind == "query":
            self.query(rec, loops, thread_con)
        elif kind in ("restart", "reconnect"):
            if thread_con is not None:
                raise RecordFailed(rec.line, kind, "", f"cannot {kind} in a parallel loop")
            if kind == "restart":
                self.new_database()
            else:
                self.init_connection(self.db)
        elif kind == "unzip":
            src = os.path.join(self.cfg.suite_root, rec.params[0]) if not os.path.isabs(rec.params[0]) else rec.params[0]
            base = os.path.basename(rec.params[0])[:-3]
            dst = rec.params[1] if len(rec.params) > 1 and rec.params[1] != "NULL" else os.path.join(self.cfg.test_dir, base)
            os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
            with gzip.open(src, "rb") as fi, open(dst, "wb") as fo:
                shutil.copyfileobj(fi, fo)
        elif kind == "sleep":
            n = float(rec.params[0])
            unit = rec.params[1]
            scale = 1 if unit.startswith("sec") else 1e-3 if unit.startswith("milli") else 1e-6 if unit.startswith("micro") else 1e-9
            time.sleep(n * scale)
        elif kind == "continue":
            loops[-1].skipped = True
        elif kind == "mode":
            pass  # output modes only affect printing
        elif kind in ("require", "test-env", "require-env"):
            raise RecordFailed(rec.line, kind, "", f"{kind} cannot be called in a loop")
        elif kind == "reset":
            self.labels.pop(rec.params[1], None)
        else:
            raise RecordFailed(rec.line, kind, "", f"unknown command {kind}")

    def loop_tokens(self, rec: Record) -> list[str]:
        out: list[str] = []
        for t in rec.params[1:]:
            low = t.lower()
            groups = {
                "<signed>": ["tinyint", "smallint", "integer", "bigint", "hugeint"],
                "<unsigned>": ["utinyint", "usmallint", "uinteger", "ubigint", "uhugeint"],
            }
            if low in ("<integral>", "<numeric>", "<alltypes>"):
                out += groups["<signed>"] + groups["<unsigned>"]
                if low != "<integral>":
                    out += ["float", "double"]
                if low == "<alltypes>":
                    out += ["bool", "interval", "varchar"]
            elif low in groups:
                out += groups[low]
            elif low.startswith("!") and t[1:] in out:
                out.remove(t[1:])
            else:
                out.append(t)
        return out

    def run_loop(self, rec: Record, loops: list[Loop], thread_con):
        name = rec.params[0]
        if rec.kind in ("loop", "concurrentloop"):
            tokens = None
            indexes = list(range(int(rec.params[1]), int(rec.params[2])))
        else:
            tokens = self.loop_tokens(rec)
            indexes = list(range(len(tokens)))
        if rec.kind.startswith("concurrent"):
            self.parallel(rec, name, tokens, indexes, loops)
            return
        for idx in indexes:
            if self.finished:
                break
            lp = Loop(name, idx, tokens)
            lp.skipped = False
            for b in rec.body:
                self.execute(b, loops + [lp], thread_con)
                if lp.skipped:
                    break

    def parallel(self, rec: Record, name: str, tokens, indexes: list[int], loops: list[Loop]):
        errors: list[RecordFailed] = []

        def one(idx: int):
            con = self.db.cursor()
            try:
                con.execute("SET arrow_lossless_conversion = true")
                lp = Loop(name, idx, tokens)
                lp.skipped = False
                for b in rec.body:
                    self.execute(b, loops + [lp], con)
                    if lp.skipped:
                        break
            except RecordFailed as e:
                with self.lock:
                    errors.append(e)
                    self.finished = True
            except Exception as e:  # noqa: BLE001 - a thread's crash is the file's failure
                with self.lock:
                    errors.append(RecordFailed(rec.line, "concurrentloop", "", f"{type(e).__name__}: {e}"))
                    self.finished = True
            finally:
                try:
                    con.close()
                except duckdb.Error:
                    pass

        threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in indexes]
        for t in threads:
            t.start()
        for t in threads:
            t.join(max(1.0, self.deadline - time.monotonic()))
        if any(t.is_alive() for t in threads):
            raise RecordFailed(rec.line, "concurrentloop", "", "file time limit reached (threads still running)")
        if errors:
            raise errors[0]

    def run_sql(self, con, sql: str):
        """Executes; returns (ok, error message)."""
        try:
            con.execute(sql)
            return True, ""
        except duckdb.Error as e:
            return False, str(e)
        except Exception as e:  # noqa: BLE001 - e.g. a Python-side conversion error is a failure to answer
            return False, f"{type(e).__name__}: {e}"

    def statement(self, rec: Record, loops: list[Loop], thread_con):
        sql = self.loop_replace(rec.sql, loops)
        con = self.connection(rec.params[1] if len(rec.params) > 1 else None, thread_con)
        ok, err = self.run_sql(con, sql)
        if ok:
            try:
                con.fetchall()
            except duckdb.Error as e:
                ok, err = False, str(e)
            except Exception:  # noqa: BLE001 - no result set (e.g. a statement without one)
                pass
        self.executed += 1
        mode = rec.params[0]
        if mode in ("maybe", "debug", "debug_skip"):
            if not ok and rec.expected_error and not self.error_matches(err, rec.expected_error):
                raise RecordFailed(rec.line, "statement", sql, f"expected error containing {rec.expected_error!r}, got: {err}")
            return
        if mode == "ok":
            if not ok:
                raise RecordFailed(rec.line, "statement", sql, err)
            return
        # error
        if ok:
            raise RecordFailed(rec.line, "statement", sql, "statement succeeded, an error was expected"
                               + (f" ({rec.expected_error!r})" if rec.expected_error else ""))
        if "INTERNAL Error" in err:
            raise RecordFailed(rec.line, "statement", sql, f"internal error: {err}")
        if rec.expected_error and not self.error_matches(err, rec.expected_error):
            raise RecordFailed(rec.line, "statement", sql, f"expected error containing {rec.expected_error!r}, got: {err}")

    def error_matches(self, err: str, expected: str) -> bool:
        if expected in err or self.replace_keywords(expected) in err:
            return True
        if expected.startswith("<REGEX>:") or expected.startswith("<!REGEX>:"):
            return regex_matches(err, expected)
        return False

    def query(self, rec: Record, loops: list[Loop], thread_con):
        sql = self.loop_replace(rec.sql, loops)
        sort, con_name, label = "nosort", None, None
        if len(rec.params) > 1:
            if rec.params[1] in ("nosort", "rowsort", "valuesort", "sort"):
                sort = rec.params[1]
            else:
                con_name = rec.params[1]
        if len(rec.params) > 2:
            label = rec.params[2]
        con = self.connection(con_name, thread_con)
        ok, err = self.run_sql(con, sql)
        self.executed += 1
        if not ok:
            raise RecordFailed(rec.line, "query", sql, err)
        try:
            types = [str(d[1]) for d in (con.description or [])]
            got, ncols, names = render(con, types)
        except Exception as e:  # noqa: BLE001 - an error while fetching is the query's error
            raise RecordFailed(rec.line, "query", sql, str(e)) from e
        if sort == "rowsort" or sort == "sort":
            rows = [got[i:i + ncols] for i in range(0, len(got), ncols)]
            rows.sort()
            got = [v for r in rows for v in r]
        elif sort == "valuesort":
            got.sort()
        expected = [self.loop_replace(v, loops) for v in rec.expected]
        nvalues = len(got)
        compare_hash = label is not None or (self.hash_threshold > 0 and nvalues > self.hash_threshold)
        is_hash = len(expected) == 1 and result_is_hash(expected[0])
        if is_hash or compare_hash:
            digest = hashlib.md5("".join(v + "\n" for v in got).encode("utf-8", "surrogateescape")).hexdigest()
            hv = f"{nvalues} values hashing to {digest}"
            if label is not None:
                with self.lock:
                    prev = self.labels.setdefault(label, hv)
                if prev != hv:
                    raise RecordFailed(rec.line, "query", sql, f"label {label}: {hv}, earlier {prev}")
            if is_hash and expected[0] != hv:
                raise RecordFailed(rec.line, "query", sql, f"wrong result hash: expected {expected[0]}, got {hv}"
                                   + "\n" + format_rows(got, ncols))
            if is_hash or label is not None:
                return
        self.compare(rec, sql, got, ncols, types, expected)

    def compare(self, rec: Record, sql: str, got: list[str], ncols: int, types: list[str], expected: list[str]):
        want_cols = len(rec.params[0])
        nrows = len(got) // ncols if ncols else 0
        if ncols == 0:
            raise RecordFailed(rec.line, "query", sql, "query returned no columns")
        row_wise = ncols > 1 and len(expected) == nrows
        if not row_wise:
            row_wise = bool(expected) and all("\t" in v for v in expected)
        if row_wise:
            values = []
            for v in expected:
                parts = v.split("\t")
                if len(parts) != ncols:
                    raise RecordFailed(rec.line, "query", sql, wrong(f"expected {len(parts)} columns, got {ncols}",
                                                                     got, ncols, expected))
                values += parts
            expected_rows = len(expected)
        else:
            if len(expected) % ncols != 0:
                raise RecordFailed(rec.line, "query", sql, wrong("expected values do not divide into the columns",
                                                                 got, ncols, expected))
            values = expected
            expected_rows = len(expected) // ncols
        if expected_rows != nrows:
            raise RecordFailed(rec.line, "query", sql, wrong(f"expected {expected_rows} rows, got {nrows}",
                                                             got, ncols, expected))
        for i, (g, w) in enumerate(zip(got, values)):
            if not values_equal(g, w, types[i % ncols], self.replace_keywords):
                raise RecordFailed(rec.line, "query", sql, wrong(
                    f"mismatch on row {i // ncols + 1}, column {i % ncols + 1}: {g} <> {w}", got, ncols, expected))
        if want_cols != ncols:
            raise RecordFailed(rec.line, "query", sql, f"expected {want_cols} columns, got {ncols} (values correct)")


def format_rows(got: list[str], ncols: int, limit: int = 20) -> str:
    rows = ["\t".join(got[i:i + ncols]) for i in range(0, len(got), max(ncols, 1))]
    more = f"\n... {len(rows) - limit} more rows" if len(rows) > limit else ""
    return "\n".join(rows[:limit]) + more


def wrong(head: str, got: list[str], ncols: int, expected: list[str]) -> str:
    exp = "\n".join(expected[:20]) + (f"\n... {len(expected) - 20} more" if len(expected) > 20 else "")
    return f"wrong result: {head}\n--- expected\n{exp}\n--- got\n{format_rows(got, ncols)}"


def run_file(path: str, rel: str, cfg: Config, timeout_s: float) -> dict:
    started = time.monotonic()
    runner = FileRunner(path, rel, cfg, started + timeout_s)
    cwd = os.getcwd()
    os.chdir(cfg.suite_root)
    try:
        out = runner.run()
    except SkipFile as e:
        out = {"status": "skip", "reason": str(e)}
    except RecordFailed as e:
        out = {"status": "fail", "line": e.line, "at": f"{rel}:{e.line}", "kind": e.kind, "sql": e.sql[:2000],
               "error": e.detail[:6000]}
    except Exception as e:  # noqa: BLE001 - the runner's own crash is reported, not raised
        out = {"status": "fail", "line": 0, "at": f"{rel}:?", "kind": "runner", "sql": "",
               "error": f"{type(e).__name__}: {e}"[:6000]}
    finally:
        os.chdir(cwd)
        try:
            runner.db.close()
        except Exception:  # noqa: BLE001
            pass
    out["file"] = rel
    out["seconds"] = round(time.monotonic() - started, 2)
    return out
