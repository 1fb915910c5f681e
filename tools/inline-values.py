"""Stock DuckDB's verdict on inlined values, for the property test of catalog/values/.

For random values of every inlinable DuckLake type (and hand-picked edges) this asks the pinned DuckDB
(duckdb==1.5.5) what `SELECT TRY_CAST(<literal> AS <type>)::VARCHAR` gives, where <literal> is what the
JSON value means as SQL (a string is a '...' literal, a number the number's JavaScript text, a list a
[...] literal, an object a {'k': v} literal, a map value MAP {k: v}). It writes the cases with DuckDB's
text (null = DuckDB refuses) and the ALTER COLUMN TYPE matrix of a stock DuckLake 1.5.5 to
test/fixtures/inline-values.json; test/catalog/values.test.ts checks catalog/values/ against it.

Each case says `grammar`: true when the input is a spelling catalog/values/ documents
(docs/decisions/0120-inlined-value-types.md), where our accept/refuse and text must equal DuckDB's;
false for spellings outside it (hex, `_`, padding, overflow to infinity, ...), where we may only refuse
or agree.

    python3 tools/inline-values.py            # rewrite the fixture
    python3 tools/inline-values.py --check    # exit 1 if the committed fixture differs (CI)
"""
import glob
import json
import os
import random
import re
import sys
import tempfile
import uuid as uuidlib
from decimal import Decimal

import importlib.util

import duckdb
import duckdb_extension_ducklake

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "test", "fixtures", "inline-values.json")
EXT = glob.glob(
    os.path.join(os.path.dirname(duckdb_extension_ducklake.__file__), "extensions", f"v{duckdb.__version__}", "ducklake.duckdb_extension")
)[0]

DUCKDB = {
    "boolean": "BOOLEAN", "int8": "TINYINT", "int16": "SMALLINT", "int32": "INTEGER", "int64": "BIGINT",
    "int128": "HUGEINT", "uint8": "UTINYINT", "uint16": "USMALLINT", "uint32": "UINTEGER", "uint64": "UBIGINT",
    "uint128": "UHUGEINT", "float32": "FLOAT", "float64": "DOUBLE", "time": "TIME", "time_ns": "TIME_NS",
    "date": "DATE", "timestamp": "TIMESTAMP", "timestamp_us": "TIMESTAMP", "timestamp_ms": "TIMESTAMP_MS",
    "timestamp_ns": "TIMESTAMP_NS", "timestamp_s": "TIMESTAMP_S", "timestamptz": "TIMESTAMPTZ",
    "timetz": "TIMETZ", "interval": "INTERVAL", "varchar": "VARCHAR", "blob": "BLOB", "uuid": "UUID", "json": "JSON",
}


def node(t, name="v", children=()):
    return {"name": name, "type": t, "children": list(children)}


def duck_type(n):
    t = n["type"]
    if t == "list":
        return duck_type(n["children"][0]) + "[]"
    if t == "map":
        return f"MAP({duck_type(n['children'][0])}, {duck_type(n['children'][1])})"
    if t == "struct":
        return "STRUCT(" + ", ".join(f'"{c["name"]}" {duck_type(c)}' for c in n["children"]) + ")"
    if t.startswith("decimal"):
        return t.upper()
    return DUCKDB[t]


def js_number(x):
    """The text JavaScript's String(x) gives, which is the literal the catalog sees."""
    if isinstance(x, bool):
        raise ValueError
    if isinstance(x, int):
        return str(x)
    r = repr(x)
    if r in ("inf", "-inf", "nan"):
        raise ValueError(r)
    d = Decimal(r)
    if x != 0 and (abs(x) >= 1e21 or abs(x) < 1e-6):
        sign, digits, exp = d.as_tuple()
        ds = "".join(map(str, digits)).rstrip("0") or "0"
        e = exp + len(digits) - 1
        m = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
        return ("-" if sign else "") + m + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    s = format(d, "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def lit(v, n):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int, float)):
        return js_number(v)
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    if n["type"] == "map":
        k, val = n["children"]
        pairs = [(e["key"], e.get("value")) for e in v] if isinstance(v, list) else list(v.items())
        return "MAP {" + ", ".join(f"{lit(a, k)}: {lit(b, val)}" for a, b in pairs) + "}"
    if isinstance(v, list):
        child = n["children"][0] if n["type"] == "list" else n
        return "[" + ", ".join(lit(e, child) for e in v) + "]"
    if isinstance(v, dict):
        kids = {c["name"]: c for c in n.get("children", [])}
        return "{" + ", ".join(f"'{k}': {lit(e, kids.get(k, n))}" for k, e in v.items()) + "}"
    raise TypeError(v)


def gen_cases(rng):
    cases = []

    def add(n, inp, grammar=True):
        cases.append({"type": n, "input": inp, "grammar": grammar})

    ranges = {"int8": 7, "int16": 15, "int32": 31, "int64": 63, "int128": 127}
    for t, bits in list(ranges.items()) + [("u" + k, v + 1) for k, v in ranges.items()]:
        n = node(t)
        lo, hi = (0, 2**bits - 1) if t.startswith("u") else (-(2**bits), 2**bits - 1)
        for v in [lo - 1, lo, hi, hi + 1, 0, -1, 1]:
            add(n, str(v))
        for _ in range(12):
            add(n, str(rng.randint(lo, hi)))
            add(n, str(rng.randint(lo - 2**bits, hi + 2**bits)))
        safe = 2**53 - 1
        for _ in range(6):
            add(n, rng.randint(max(lo, -safe), min(hi, safe)))
        for v in ["+5", "-0", "007", "", "abc", "5 ", " 5", "0x10", "1_000", "1.5", "1e2", "--1"]:
            add(n, v, grammar=v in ("+5", "-0", "007", "", "abc", "--1"))
        for v in [True, False, 1.5, 1e308, 2.5]:
            add(n, v, grammar=v not in (2.5, 1.5))
        add(n, 2**63, grammar=False)
        add(n, 10**18, grammar=False)
    for t in ["float32", "float64"]:
        n = node(t)
        for _ in range(25):
            x = rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30)
            add(n, x)
            add(n, repr(x))
            add(n, float(f"{x:.3g}"))
        for v in [0.1, 100.0, 1e20, 1.5e-7, 123456789012345678.0, 1e16, 1e15, 0.0001, 0.00001, 3.4e38, 3.5e38, 1e39, 1e308, 5e-324, 1e-50]:
            add(n, v)
        for v in ["nan", "NaN", "inf", "-inf", "Infinity", "-Infinity", "+inf", "INF", "1e5", ".5", "5.", "-0.0", "abc", ""]:
            add(n, v)
        for v in ["-nan", "1e39", "1e400", " 1.5", "1_0", "0x10", "1,5"]:
            add(n, v, grammar=False)
        add(n, True)
    for p, s in [(4, 2), (1, 0), (9, 9), (18, 3), (38, 10), (38, 0), (10, 2)]:
        n = node(f"decimal({p},{s})")
        for _ in range(20):
            digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, p + 2)))
            cut = rng.randint(0, len(digits))
            text = (rng.choice(["", "-", "+"]) + digits[:cut] + "." + digits[cut:]).replace("+.", "+0.")
            if text.endswith(".") and cut == 0:
                text += "0"
            add(n, text if text not in ("-.", ".", "+.") else "0")
        for v in ["1.005", "1.015", "-1.005", "99.995", "99.99", "-99.99", "99999.999", "0.5", ".5", "5.", "-0.001", "0", "-0", "abc", ""]:
            add(n, v)
        for v in [1.5, 0.1, -2.345, 10]:
            add(n, v)
        for v in [" 1.5", "1,5", "0x10", "1_0", "1e1", "1.5e-1", "1e-400", "1e400", True, 1e21, 1e-7]:
            add(n, v, grammar=False)
    n = node("boolean")
    for v in ["true", "false", "t", "f", "TRUE", "False", "yes", "no", "YES", "y", "n", "1", "0", "2", "on", "off", " true", ""]:
        add(n, v)
    for v in [True, False, 0, 1, 2, -1, 0.5]:
        add(n, v)
    n = node("varchar")
    alphabet = "ab ,'\"\\[]{}():=\n\té€😀"
    for _ in range(20):
        add(n, "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8))))
    for v in ["", "NULL", "null", "x y"]:
        add(n, v)
    for v in [5, 1.5, True]:
        add(n, v, grammar=False)
    n = node("json")
    for v in ['{"a": 1}', "[1,2", "1", '"x"', "null", "true", "", "{a:1}", " [1] ", '{"a":[{"b":null}]}']:
        add(n, v)
    for v in ["NaN", "[1,]", "{'a':1}"]:
        add(n, v, grammar=False)
    n = node("blob")
    for _ in range(15):
        parts = []
        for _ in range(rng.randint(0, 6)):
            r = rng.random()
            if r < 0.4:
                parts.append(rng.choice("abcXYZ 09,\"'!~"))
            elif r < 0.8:
                parts.append("\\x" + format(rng.randint(0, 255), "02x" if rng.random() < 0.5 else "02X"))
            else:
                parts.append(rng.choice(["\\z", "\\x4", "é", "\\"]))
        add(n, "".join(parts))
    n = node("uuid")
    for _ in range(6):
        u = uuidlib.UUID(int=rng.getrandbits(128))
        add(n, str(u))
        add(n, str(u).upper())
        add(n, u.hex)
        add(n, "{" + str(u) + "}")
    for v in ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", ""]:
        add(n, v)
    add(n, "a0eebc99-9c0b4ef8-bb6d-6bb9bd380a11", grammar=False)
    n = node("date")
    for _ in range(25):
        y, m, d = rng.randint(1, 9999), rng.randint(1, 13), rng.randint(1, 31)
        add(n, f"{y:04d}-{m:02d}-{d:02d}")
    for v in ["2020-02-29", "2021-02-29", "1900-02-29", "2000-02-29", "2020-04-31", "2020-1-1", "infinity", "-infinity", "0001-01-01", "9999-12-31", "", "x"]:
        add(n, v)
    for v in ["2020/01/01", "20200101", "10000-01-01", "0000-01-01", " 2020-01-01", "2020-01-01 10:00", "2020-01-01 (BC)"]:
        add(n, v, grammar=False)

    def rand_time(frac_max=9):
        h, mi, s = rng.randint(0, 24), rng.randint(0, 60), rng.randint(0, 60)
        f = "".join(rng.choice("0123456789") for _ in range(rng.randint(0, frac_max)))
        return f"{h:02d}:{mi:02d}:{s:02d}" + ("." + f if f else "")

    for t in ["time", "time_ns", "timetz"]:
        n = node(t)
        for _ in range(15):
            add(n, rand_time())
        for v in ["24:00:00", "24:00:01", "23:59:59.999999999", "10:00", "1:02:03", "10:00:00.5", ""]:
            add(n, v)
        if t == "timetz":
            for v in ["10:00:00+02", "10:00:00-02:30", "10:00:00+0230", "10:00:00+16", "10:00:00+15:59", "10:00:00Z"]:
                add(n, v)
    for t in ["timestamp", "timestamp_us", "timestamp_ms", "timestamp_ns", "timestamp_s", "timestamptz"]:
        n = node(t)
        for _ in range(20):
            y, m, d = rng.randint(1, 9999), rng.randint(1, 12), rng.randint(1, 28)
            sep = rng.choice([" ", "T"])
            add(n, f"{y:04d}-{m:02d}-{d:02d}{sep}{rand_time()}")
        add(n, "9999-12-31 23:59:59.9999999", grammar=t not in ("timestamp_ms", "timestamp_s"))
        for v in ["2020-01-01", "2020-01-01 10:00", "2020-01-01 24:00:00", "0001-01-01 00:00:00", "1677-09-21 00:12:43.145224", "2262-04-11 23:47:16.854775807", "2262-04-11 23:47:16.854775808",
                  "2020-01-01 10:00:00.1239", "2020-01-01 10:00:00.5", "2020-01-01 10:00:00.4999999", "1969-12-31 23:59:59.5",
                  "1969-12-31 23:59:59.9995", "infinity", "-infinity", "2020-02-30 10:00:00", ""]:
            add(n, v)
        offsets = ["2020-01-01 10:00:00+02", "2020-01-01 10:00:00-02:30", "2020-01-01 10:00:00Z", "2020-01-01 00:30:00+0100"]
        for v in offsets:
            add(n, v, grammar=t == "timestamptz")
        add(n, "0001-01-01 00:00:00+01", grammar=False)
        add(n, "2020-01-01 10:00:00 UTC", grammar=False)
    n = node("interval")
    units = ["year", "years", "month", "months", "mon", "mons", "day", "days", "week", "weeks", "hour", "hours", "minute", "minutes", "second", "seconds"]
    for _ in range(20):
        parts = [f"{rng.randint(-30, 30)} {rng.choice(units)}" for _ in range(rng.randint(0, 3))]
        clock = not parts or rng.random() < 0.5
        sign = rng.choice(["", "-"])
        if clock:
            parts.append(sign + f"{rng.randint(0, 99):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}" + rng.choice(["", ".5", ".123456", ".1234567"]))
        # DuckDB also negates earlier hour/minute/second parts before a negative clock: outside the grammar.
        quirk = clock and sign == "-" and any(p.split()[1].startswith(("hour", "minute", "second")) and p.split()[0] not in ("0", "-0") for p in parts[:-1])
        add(n, " ".join(parts), grammar=not quirk)
    for v in ["1 day", "14 months", "-14 months", "1 week", "1 hour", "90 minutes", "1 day -01:00:00", "25:00:00", "00:00:00", "1 fortnight", "", "-1 year -2 months"]:
        add(n, v)
    for v in ["P1D", " 1 day", "1day"]:
        add(n, v, grammar=False)
    li = node("list", children=[node("int32", "element")])
    for v in [[1, 2, None], ["1", "2"], [], ["x"], [2**31]]:
        add(li, v)
    lb = node("list", children=[node("blob", "element")])
    add(lb, ["a\\x00b", "c"])
    li2 = node("list", children=[node("interval", "element")])
    add(li2, ["1 day", "1 year 02:00:00"])
    add(li, 5)
    lv = node("list", children=[node("varchar", "element")])
    for _ in range(10):
        add(lv, ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 5))) for _ in range(rng.randint(1, 3))])
    for v in [["null", "NULL", " a", "a:b", "a=b", "a(b", "é", "", "a\\b", "a\\b,c", "x'y"]]:
        add(lv, v)
    st = node("struct", children=[node("int32", "a"), node("list", "b", [node("varchar", "element")]), node("decimal(4,2)", "c")])
    for v in [{"a": 1, "b": ["x", "y z"], "c": "1.5"}, {"a": "x", "b": [], "c": 1}, {"a": 1}, {"A": 2, "b": None, "c": None}, {"a": 1, "b": ["q"], "c": "99999"}]:
        add(st, v)
    add(st, {"a": 1, "zz": 2}, grammar=False)
    mp = node("map", children=[node("varchar", "key"), node("int32", "value")])
    for v in [[{"key": "a", "value": 1}, {"key": "b", "value": None}], {"a": 1, "b": 2}, [], [{"key": "a", "value": 1}, {"key": "a", "value": 2}], [{"key": None, "value": 1}], {"k": "x"}]:
        add(mp, v)
    md = node("map", children=[node("int32", "key"), node("date", "value")])
    for v in [[{"key": 1, "value": "2020-01-01"}], [{"key": "1", "value": "2020-13-01"}]]:
        add(md, v)
    ll = node("list", children=[node("list", "element", [node("timestamptz", "element")])])
    add(ll, [["2020-01-01 10:00:00+02", None], []])
    return cases


def duck_verdict(con, case):
    n = case["type"]
    try:
        # CAST, not TRY_CAST: inside a nested value TRY_CAST would null one field where INSERT fails.
        sql = f"SELECT CAST({lit(case['input'], n)} AS {duck_type(n)})::VARCHAR"
        return con.execute(sql).fetchone()[0]
    except duckdb.Error:
        return None


# A sample of the types (each integer width's decimal boundary, every timestamp precision); a stock
# ALTER costs ~0.1 s, so the full 40x40 matrix would slow CI for little.
PROMOTION_TYPES = [
    "boolean", "int8", "int32", "int64", "int128", "uint8", "uint32", "uint64", "float32", "float64",
    "decimal(4,2)", "decimal(10,3)", "decimal(12,2)", "decimal(19,0)", "decimal(20,0)", "varchar", "json", "blob",
    "date", "time", "timestamp", "timestamp_s", "timestamp_ns", "timestamptz",
]


def promotions():
    con = duckdb.connect(config={"allow_unsigned_extensions": "true", "autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
    con.execute(f"LOAD '{EXT}'")
    d = tempfile.mkdtemp()
    con.execute(f"ATTACH 'ducklake::memory:' AS lake (DATA_PATH '{d}/data')")
    con.execute("USE lake")
    allowed = []
    for i, a in enumerate(PROMOTION_TYPES):
        cols = ", ".join(f"c{j} {duck_type(node(a))}" for j in range(len(PROMOTION_TYPES)))
        con.execute(f"CREATE TABLE t{i} ({cols})")
        for j, b in enumerate(PROMOTION_TYPES):
            if a == b:
                continue
            try:
                con.execute(f"ALTER TABLE t{i} ALTER c{j} TYPE {duck_type(node(b))}")
                allowed.append([a, b])
            except duckdb.Error:
                pass
    return {"types": PROMOTION_TYPES, "allowed": allowed}


def main():
    rng = random.Random(20261201)
    con = duckdb.connect()
    con.execute("SET TimeZone='UTC'")
    cases = gen_cases(rng)
    for c in cases:
        c["duckdb"] = duck_verdict(con, c)
    # Laid out as Biome formats JSON (the golden script's formatter), so `biome check .` stays clean.
    spec = importlib.util.spec_from_file_location("ducklake_golden", os.path.join(HERE, "ducklake-golden.py"))
    golden = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(golden)
    text = golden.to_text({"duckdb": duckdb.__version__, "cases": cases, "promotions": promotions()})
    # Biome writes a number's exponent without "+" or leading zeros (1e308, 1.5e-7); numbers only.
    text = re.sub(r"(: |\[|, )(-?\d+(?:\.\d+)?)e([+-])0*(\d+)", lambda m: f"{m[1]}{m[2]}e{'-' if m[3] == '-' else ''}{m[4]}", text)
    if "--check" in sys.argv:
        old = open(OUT).read() if os.path.exists(OUT) else None
        if old != text:
            print(f"stale: {OUT} (run python3 tools/inline-values.py)")
            sys.exit(1)
        print(f"ok: {len(cases)} value cases")
        return
    with open(OUT, "w") as f:
        f.write(text)
    print(f"wrote {OUT}: {len(cases)} cases")


if __name__ == "__main__":
    main()
