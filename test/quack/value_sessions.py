"""The value property of issue 26: seeded random values of every type DuckLake inlines or writes to Parquet,
written through stock DuckDB over Quack into ducklake-edge and into a stock server, every row read back and
compared (run.py compares each statement's result and then the catalogs). Bounded: SEEDS sessions of
INLINED_ROWS inlined rows and FILE_ROWS rows in one Parquet file each (a few seconds per session).

Each session: one table with a column per type, an INSERT small enough to be inlined (values as literals
in DuckLake's commit batch or staged rows), an INSERT past the inlining limit (a Parquet file and its
stats), a SELECT of every row, and an UPDATE and a DELETE of some rows (inlined row versions) read back.
"""
import random

# Seeds run by `npm run test:quack` (both servers, with and without --server-commit). Fixed so a failure
# reproduces; change them to explore.
SEEDS = (26, 2026, 440)
INLINED_ROWS = 8
FILE_ROWS = 40

INT_RANGES = {
    "TINYINT": (-(2**7), 2**7 - 1), "SMALLINT": (-(2**15), 2**15 - 1), "INTEGER": (-(2**31), 2**31 - 1),
    # Stock writes (U)HUGEINT to Parquet as DOUBLE, and a value near the type's end rounds past it and
    # cannot be read back (on stock too): their values stay within 2^100.
    "BIGINT": (-(2**63), 2**63 - 1), "HUGEINT": (-(2**100), 2**100), "UTINYINT": (0, 2**8 - 1),
    "USMALLINT": (0, 2**16 - 1), "UINTEGER": (0, 2**32 - 1), "UBIGINT": (0, 2**64 - 1),
    "UHUGEINT": (0, 2**100),
}
DECIMALS = ((4, 2), (9, 3), (18, 6), (38, 10), (38, 0))


def q(s):
    return "'" + s.replace("'", "''") + "'"


def text_value(r):
    pick = r.randrange(6)
    if pick == 0:
        return "''"
    if pick == 1:  # NUL bytes inside and at the ends
        return f"({q('a')} || chr(0) || {q(str(r.randrange(100)))} || chr(0))"
    if pick == 2:
        return q("it's \"quoted\" \\ back")
    if pick == 3:
        return q("héllo ✓ 𝄞")
    return q("".join(r.choice("abcxyz019 ,;()[]{}") for _ in range(r.randrange(1, 12))))


def int_value(r, lo, hi):
    return str(r.choice([lo, hi, 0, 1, -1 if lo < 0 else 2, r.randint(lo, hi), r.randint(lo, hi)]))


def decimal_value(r, width, scale):
    digits = width - scale
    whole = r.choice([0, 10**digits - 1, r.randrange(10**digits)])
    frac = r.randrange(10**scale) if scale else 0
    sign = r.choice(["", "-"])
    return f"{sign}{whole}" + (f".{frac:0{scale}d}" if scale else "") + f"::DECIMAL({width},{scale})"


def float_value(r, kind):
    v = r.choice(["'nan'", "'inf'", "'-inf'", "-0.0", "0.0", repr(r.uniform(-1e6, 1e6)), "1e-30", "3.4e37"])
    return f"{v}::{kind}"


def date_value(r):
    return r.choice(["'infinity'", "'-infinity'", "'1970-01-01'", "'0001-01-01'", "'9999-12-31'",
                     f"'{r.randint(1900, 2100)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}'"]) + "::DATE"


def ts_value(r, kind, frac_digits, infinite=True):
    base = f"{r.randint(1900, 2100)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d} " \
           f"{r.randrange(24):02d}:{r.randrange(60):02d}:{r.randrange(60):02d}"
    if frac_digits:
        base += "." + "".join(str(r.randrange(10)) for _ in range(frac_digits))
    # Stock DuckLake cannot write an infinite TIMESTAMP_S/_MS/_NS to Parquet ("Could not convert
    # Timestamp(S) to Timestamp(US)"): those units get finite values only.
    return r.choice(["'infinity'", "'-infinity'", f"'{base}'", f"'{base}'"] if infinite else [f"'{base}'"]) + f"::{kind}"


COLUMNS = [
    ("b", "BOOLEAN", lambda r: r.choice(["true", "false"])),
    *[(f"i_{t.lower()}", t, (lambda t: lambda r: f"'{int_value(r, *INT_RANGES[t])}'::{t}")(t)) for t in INT_RANGES],
    ("f", "FLOAT", lambda r: float_value(r, "FLOAT")),
    ("d", "DOUBLE", lambda r: float_value(r, "DOUBLE")),
    *[(f"dec_{w}_{s}", f"DECIMAL({w},{s})", (lambda w, s: lambda r: decimal_value(r, w, s))(w, s))
      for w, s in DECIMALS],
    ("dt", "DATE", date_value),
    ("tm", "TIME", lambda r: f"'{r.randrange(24):02d}:{r.randrange(60):02d}:{r.randrange(60):02d}.{r.randrange(10**6):06d}'::TIME"),
    ("ts", "TIMESTAMP", lambda r: ts_value(r, "TIMESTAMP", 6)),
    ("ts_s", "TIMESTAMP_S", lambda r: ts_value(r, "TIMESTAMP_S", 0, False)),
    ("ts_ms", "TIMESTAMP_MS", lambda r: ts_value(r, "TIMESTAMP_MS", 3, False)),
    ("ts_ns", "TIMESTAMP_NS", lambda r: ts_value(r, "TIMESTAMP_NS", 9, False)),
    ("tstz", "TIMESTAMPTZ", lambda r: ts_value(r, "TIMESTAMPTZ", 6)),
    # Parquet holds no negative interval part (stock refuses to write one), so parts are non-negative.
    ("iv", "INTERVAL", lambda r: f"INTERVAL '{r.randint(0, 30)} months {r.randint(0, 40)} days {r.randrange(10**9)} microseconds'"),
    ("s", "VARCHAR", text_value),
    ("bl", "BLOB", lambda r: "'" + "".join(f"\\x{r.randrange(256):02X}" for _ in range(r.randrange(6))) + "'::BLOB"),
    ("u", "UUID", lambda r: f"'{r.getrandbits(128):032x}'::UUID"),
    ("l", "INTEGER[]", lambda r: "[" + ", ".join(r.choice(["NULL", str(r.randint(-9, 9))]) for _ in range(r.randrange(4))) + "]"),
    ("st", "STRUCT(a INTEGER, b VARCHAR)", lambda r: f"{{'a': {r.randint(-5, 5)}, 'b': {text_value(r)}}}"),
    ("m", "MAP(VARCHAR, INTEGER)", lambda r: "MAP {" + ", ".join(f"'k{k}': {r.randint(-9, 9)}" for k in range(r.randrange(3))) + "}"),
]


def row(r, rid):
    vals = [str(rid)]
    for _name, _type, gen in COLUMNS:
        vals.append("NULL" if r.random() < 0.12 else gen(r))
    return "(" + ", ".join(vals) + ")"


def session(seed):
    r = random.Random(seed)
    cols = ", ".join(f"{name} {typ}" for name, typ, _ in COLUMNS)
    names = ", ".join(name for name, _, _ in COLUMNS)
    inlined = ", ".join(row(r, i) for i in range(INLINED_ROWS))
    files = ", ".join(row(r, INLINED_ROWS + i) for i in range(FILE_ROWS))
    return [
        "ATTACH '{attach}' AS lake (DATA_PATH '{data}', DATA_INLINING_ROW_LIMIT 10)",
        f"CREATE TABLE lake.v (id INTEGER, {cols})",
        f"INSERT INTO lake.v VALUES {inlined}",
        f"INSERT INTO lake.v VALUES {files}",
        f"SELECT id, {names} FROM lake.v ORDER BY id",
        f"UPDATE lake.v SET s = {text_value(r)}, dec_38_10 = {decimal_value(r, 38, 10)} WHERE id % 3 = 1",
        "DELETE FROM lake.v WHERE id % 5 = 2",
        f"SELECT id, {names} FROM lake.v ORDER BY id",
    ]


VALUE_SESSIONS = {f"values-seed-{s}": session(s) for s in SEEDS}
