/**
 * A VARIANT cell of an inlined row, from the literal DuckLake wrote for it (docs/decisions/0700-variant-values.md).
 * DuckLake writes a VARIANT value as the SQL literal of the value inside it (`42`, `'hi'`,
 * `CAST('2000-01-01' AS DATE)`, `{'a': 42, 'b': NULL}`, `[1, 2, NULL]`); a stock server inserts that
 * literal into the VARIANT column, so the value keeps *the literal's* DuckDB type. This file types a
 * literal exactly as DuckDB's parser does, and refuses (by shape) every literal whose type it cannot
 * name exactly: a list whose elements DuckDB would unify to another type, an unknown cast, a number out
 * of every integer range.
 */
import { InvalidRequest, Unsupported } from "../../errors.ts";
import type { InlineValue } from "../../records.ts";
import { MAX_DECIMAL_WIDTH } from "../../types.ts";
import { parseValue, type StoredValue, type TypeNode } from "../../values/index.ts";
import type { Literal } from "./parse.ts";

/** The DuckLake type of a `CAST(… AS T)` DuckLake writes inside a VARIANT value. */
const CAST_TYPES: Record<string, string> = {
  DATE: "date",
  TIME: "time",
  TIME_NS: "time_ns",
  "TIME WITH TIME ZONE": "timetz",
  TIMETZ: "timetz",
  TIMESTAMP: "timestamp",
  TIMESTAMP_NS: "timestamp_ns",
  TIMESTAMP_MS: "timestamp_ms",
  TIMESTAMP_S: "timestamp_s",
  "TIMESTAMP WITH TIME ZONE": "timestamptz",
  TIMESTAMPTZ: "timestamptz",
  BLOB: "blob",
  UUID: "uuid",
  INTERVAL: "interval",
  FLOAT: "float32",
  DOUBLE: "float64",
};

const I32 = 2n ** 31n - 1n;
const I64 = 2n ** 63n - 1n;
const I128 = 2n ** 127n - 1n;
const U128 = 2n ** 128n - 1n;

function refuse(what: string): never {
  throw new Unsupported(`a VARIANT value written as ${what} cannot be inlined exactly`);
}

/** Check and canonicalise one primitive through the value rules (`catalog/values/`). */
function typed(t: string, v: StoredValue): StoredValue {
  const node: TypeNode = { name: "variant", type: "variant", children: [] };
  return parseValue(node, { t, v }, "variant value");
}

/** DuckDB's type of an integer literal: INTEGER, BIGINT, HUGEINT, then UHUGEINT (a `-N` is `-(N)`). */
function integerType(text: string): string {
  const neg = text.startsWith("-");
  const n = BigInt(neg ? text.slice(1) : text);
  if (n <= I32) return "int32";
  if (n <= I64) return "int64";
  if (n <= I128) return "int128";
  if (!neg && n <= U128) return "uint128";
  return refuse(`the integer ${text}`);
}

function numberValue(text: string): StoredValue {
  if (/^-?\d+$/.test(text)) {
    const t = integerType(text);
    return typed(t, t === "int32" ? Number(text) : text);
  }
  const dec = /^-?(\d*)\.(\d*)$/.exec(text);
  if (dec) {
    const width = (dec[1] ?? "").length + (dec[2] ?? "").length;
    const scale = (dec[2] ?? "").length;
    if (width <= MAX_DECIMAL_WIDTH && (dec[1] ?? "") !== "" && scale > 0)
      return typed(`decimal(${width},${scale})`, text);
    if (width > MAX_DECIMAL_WIDTH) return typed("float64", Number(text));
    return refuse(`the number ${text}`);
  }
  if (/^-?\d+(\.\d*)?[eE][+-]?\d+$/.test(text)) return typed("float64", Number(text));
  return refuse(`the number ${text}`);
}

/**
 * The one type a list literal's elements share. DuckDB unifies a list literal's element types, which
 * would change the values (`[1, 1.5]` holds 1.0 and 1.5, `[{'a': 1}, {'b': 2}]` gains NULL fields); only
 * lists whose elements already have one type (NULL fits every type) are kept, the rest refused.
 */
type Shape =
  | null
  | { k: "prim"; t: string }
  | { k: "object"; fields: [string, Shape][] }
  | { k: "array"; element: Shape };

function mergeShape(shape: Shape, v: StoredValue): Shape {
  if (v === null) return shape;
  const node = v as { t: string; v: StoredValue };
  const differ = (): never => refuse(`a list whose elements have different types (${node.t})`);
  if (node.t === "object") {
    const fields = node.v as [string, StoredValue][];
    if (shape === null) return { k: "object", fields: fields.map(([k, f]) => [k, mergeShape(null, f)]) };
    if (shape.k !== "object" || shape.fields.length !== fields.length) return differ();
    return {
      k: "object",
      fields: shape.fields.map(([k, s], i) => {
        const [key, f] = fields[i] as [string, StoredValue];
        if (key !== k) differ();
        return [k, mergeShape(s, f)];
      }),
    };
  }
  if (node.t === "array") {
    if (shape !== null && shape.k !== "array") return differ();
    let element: Shape = shape === null ? null : shape.element;
    for (const e of node.v as StoredValue[]) element = mergeShape(element, e);
    return { k: "array", element };
  }
  if (shape !== null && (shape.k !== "prim" || shape.t !== node.t)) return differ();
  return { k: "prim", t: node.t };
}

/** The elements of one list literal, refused unless they share one type (DuckDB would unify them). */
function oneType(items: StoredValue[]): StoredValue[] {
  let shape: Shape = null;
  for (const item of items) shape = mergeShape(shape, item);
  return items;
}

/** The stored VARIANT value of the literal DuckLake wrote for a VARIANT cell. */
export function variantOfLiteral(l: Literal): StoredValue {
  switch (l.k) {
    case "null":
      return null;
    case "bool":
      return typed("boolean", l.v);
    case "num":
      if (l.cast !== undefined) return castValue(l.cast, l.text);
      return numberValue(l.text);
    case "str":
      if (l.cast !== undefined) return castValue(l.cast, l.v);
      return typed("varchar", l.v);
    case "struct": {
      const seen = new Set<string>();
      for (const f of l.fields) {
        if (seen.has(f.name)) refuse(`a struct naming ${JSON.stringify(f.name)} twice`);
        seen.add(f.name);
      }
      // An empty struct is written as NULL by DuckLake; `{}` never reaches here.
      return { t: "object", v: l.fields.map((f) => [f.name, variantOfLiteral(f.v)]) };
    }
    case "list": {
      return { t: "array", v: oneType(l.items.map(variantOfLiteral)) };
    }
    case "map":
      return refuse("a MAP literal");
    default:
      throw new InvalidRequest(`${l.k.toUpperCase()}() is not a value an inlined row can hold`);
  }
}

function castValue(cast: string, text: string): StoredValue {
  const t = CAST_TYPES[cast.toUpperCase().replace(/\s+/g, " ")];
  if (t === undefined) return refuse(`CAST(… AS ${cast})`);
  return typed(t, text);
}

/** Whether a column's type tree holds a VARIANT anywhere (its cells then need typing here). */
function holdsVariant(node: TypeNode): boolean {
  return node.type === "variant" || node.children.some(holdsVariant);
}

/**
 * A cell of an inlined row as the value `parseValue` takes for its column: a VARIANT cell (at the top or
 * inside a LIST, STRUCT or MAP) is typed from its literal here; everything else is `plain`
 * (translate.ts `inlineValue`).
 */
export function cellValue(
  node: TypeNode | undefined,
  l: Literal,
  plain: (l: Literal) => InlineValue,
): InlineValue {
  if (!node || !holdsVariant(node)) return plain(l);
  if (node.type === "variant") return variantOfLiteral(l) as InlineValue;
  const [first, second] = node.children;
  // A list's (a map's keys', values') elements are one list literal: DuckDB unifies their types before the
  // cast to VARIANT, so VARIANT elements must already agree, as inside a VARIANT array.
  // Elements that are themselves nested around a VARIANT (STRUCT(a VARIANT)[]) would be unified field by
  // field: more than one such element is refused rather than checked.
  const elements = (child: TypeNode, items: Literal[]): InlineValue[] => {
    if (child.type === "variant") return oneType(items.map(variantOfLiteral)) as InlineValue[];
    if (holdsVariant(child) && items.filter((i) => i.k !== "null").length > 1)
      refuse(`a list of ${child.type.toUpperCase()} values holding VARIANT values`);
    return items.map((i) => cellValue(child, i, plain));
  };
  if (node.type === "list" && l.k === "list" && first) return elements(first, l.items);
  if (node.type === "struct" && l.k === "struct") {
    const out: { [field: string]: InlineValue } = {};
    for (const f of l.fields) {
      const child = node.children.find((c) => c.name.toLowerCase() === f.name.toLowerCase());
      out[f.name] = child ? cellValue(child, f.v, plain) : plain(f.v);
    }
    return out;
  }
  if (node.type === "map" && l.k === "map" && first && second) {
    const keys = elements(first, l.keys);
    const values = elements(second, l.values);
    return keys.map((key, i) => ({ key, value: values[i] ?? null }));
  }
  return plain(l);
}
