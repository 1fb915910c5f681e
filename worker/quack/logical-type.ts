/**
 * DuckDB `LogicalType` serialization (field 100 the type id, field 101 the nullable `ExtraTypeInfo`) for
 * every `SqlType` of `catalog/sql/result.ts`, and its inverse. Ids and info layouts are DuckDB's
 * (`LogicalTypeId`, `ExtraTypeInfoType`); JSON is VARCHAR with the alias "JSON", MAP is a LIST of
 * STRUCT(key, value) under its own id (decision record `docs/decisions/0201-quack-wire-codec.md`).
 */
import { type SqlType, VARIANT_PHYSICAL } from "../../catalog/index.ts";
import type { BinaryReader, BinaryWriter } from "./binary.ts";
import { QuackProtocolError } from "./errors.ts";

type ScalarId = Exclude<SqlType, { id: "DECIMAL" | "LIST" | "ARRAY" | "STRUCT" | "MAP" }>["id"] & string;
type PlainId = Exclude<ScalarId, "VARIANT">;

/** DuckDB's LogicalTypeId numbers for the scalar types (JSON is VARCHAR + alias). */
const SCALAR_IDS: Record<PlainId, number> = {
  SQLNULL: 1,
  BOOLEAN: 10,
  TINYINT: 11,
  SMALLINT: 12,
  INTEGER: 13,
  BIGINT: 14,
  DATE: 15,
  TIME: 16,
  TIMESTAMP_S: 17,
  TIMESTAMP_MS: 18,
  TIMESTAMP: 19,
  TIMESTAMP_NS: 20,
  FLOAT: 22,
  DOUBLE: 23,
  VARCHAR: 25,
  BLOB: 26,
  INTERVAL: 27,
  UTINYINT: 28,
  USMALLINT: 29,
  UINTEGER: 30,
  UBIGINT: 31,
  "TIMESTAMP WITH TIME ZONE": 32,
  "TIME WITH TIME ZONE": 34,
  UHUGEINT: 49,
  HUGEINT: 50,
  UUID: 54,
  JSON: 25,
};

const ID_DECIMAL = 21;
const ID_STRUCT = 100;
const ID_LIST = 101;
const ID_MAP = 102;
const ID_ARRAY = 108;
/** VARIANT: its own id, with its physical STRUCT as struct type info (docs/decisions/0701-variant-wire.md). */
const ID_VARIANT = 109;

/** DuckDB's ExtraTypeInfoType numbers. */
const INFO_GENERIC = 1;
const INFO_DECIMAL = 2;
const INFO_LIST = 4;
const INFO_STRUCT = 5;
const INFO_ARRAY = 9;

const SCALAR_BY_ID = new Map<number, PlainId>(
  (Object.entries(SCALAR_IDS) as [PlainId, number][])
    .filter(([name]) => name !== "JSON")
    .map(([n, i]) => [i, n]),
);

/** Deepest type nesting accepted on decode (DuckLake's types nest a few levels). */
export const MAX_TYPE_DEPTH = 64;

function variantFields(): readonly { name: string; type: SqlType }[] {
  return VARIANT_PHYSICAL.id === "STRUCT" ? VARIANT_PHYSICAL.fields : [];
}

export function writeLogicalType(w: BinaryWriter, type: SqlType): void {
  w.fieldId(100);
  switch (type.id) {
    case "DECIMAL":
      w.uleb(ID_DECIMAL);
      writeInfo(w, INFO_DECIMAL, () => {
        if (type.width !== 0) {
          w.fieldId(200);
          w.uleb(type.width);
        }
        if (type.scale !== 0) {
          w.fieldId(201);
          w.uleb(type.scale);
        }
      });
      break;
    case "LIST":
    case "MAP":
      w.uleb(type.id === "LIST" ? ID_LIST : ID_MAP);
      writeInfo(w, INFO_LIST, () => {
        w.fieldId(200);
        const child: SqlType =
          type.id === "LIST"
            ? type.child
            : {
                id: "STRUCT",
                fields: [
                  { name: "key", type: type.key },
                  { name: "value", type: type.value },
                ],
              };
        w.object(() => writeLogicalType(w, child));
      });
      break;
    case "VARIANT":
    case "STRUCT": {
      const fields = type.id === "STRUCT" ? type.fields : variantFields();
      w.uleb(type.id === "STRUCT" ? ID_STRUCT : ID_VARIANT);
      writeInfo(w, INFO_STRUCT, () => {
        if (fields.length === 0) return;
        w.fieldId(200);
        w.list(fields, (f) => {
          w.object(() => {
            w.fieldId(0);
            w.string(f.name);
            w.fieldId(1);
            w.object(() => writeLogicalType(w, f.type));
          });
        });
      });
      break;
    }
    case "ARRAY":
      w.uleb(ID_ARRAY);
      writeInfo(w, INFO_ARRAY, () => {
        w.fieldId(200);
        w.object(() => writeLogicalType(w, type.child));
        if (type.size !== 0) {
          w.fieldId(201);
          w.uleb(type.size);
        }
      });
      break;
    case "JSON":
      w.uleb(SCALAR_IDS.JSON);
      writeInfo(w, INFO_GENERIC, () => {}, "JSON");
      break;
    default:
      w.uleb(SCALAR_IDS[type.id]);
  }
}

/** Field 101: a present nullable ExtraTypeInfo object (type, optional alias, then the info's own fields). */
function writeInfo(w: BinaryWriter, infoType: number, body: () => void, alias?: string): void {
  w.fieldId(101);
  w.u8(1);
  w.object(() => {
    w.fieldId(100);
    w.uleb(infoType);
    if (alias) {
      w.fieldId(101);
      w.string(alias);
    }
    body();
  });
}

/** Reads the fields of one LogicalType object (the caller consumes the object end). */
export function readLogicalType(r: BinaryReader, depth = 0): SqlType {
  if (depth > MAX_TYPE_DEPTH) throw new QuackProtocolError(`type nesting deeper than ${MAX_TYPE_DEPTH}`);
  r.requireField(100, "id");
  const id = r.uleb();
  let info: Info | null = null;
  if (r.field(101)) {
    if (r.bool()) {
      info = readInfo(r, depth);
      r.end();
    }
  }
  return typeOf(id, info);
}

interface Info {
  kind: number;
  alias: string;
  width: number;
  scale: number;
  child: SqlType | null;
  fields: { name: string; type: SqlType }[];
  size: number;
}

function readInfo(r: BinaryReader, depth: number): Info {
  r.requireField(100, "type");
  const info: Info = { kind: r.uleb(), alias: "", width: 0, scale: 0, child: null, fields: [], size: 0 };
  if (r.field(101)) info.alias = r.string();
  if (r.peekFieldId() === 102 || r.peekFieldId() === 103) {
    throw new QuackProtocolError(
      `type modifiers or extension type info (field ${r.peekFieldId()}) not supported`,
    );
  }
  const childType = (): SqlType => {
    const t = readLogicalType(r, depth + 1);
    r.end();
    return t;
  };
  switch (info.kind) {
    case INFO_GENERIC:
      break;
    case INFO_DECIMAL:
      if (r.field(200)) info.width = r.uleb();
      if (r.field(201)) info.scale = r.uleb();
      break;
    case INFO_LIST:
      r.requireField(200, "child_type");
      info.child = childType();
      break;
    case INFO_STRUCT:
      if (r.field(200)) {
        info.fields = r.list(() => {
          r.requireField(0, "first");
          const name = r.string();
          r.requireField(1, "second");
          const type = childType();
          r.end();
          return { name, type };
        });
      }
      break;
    case INFO_ARRAY:
      r.requireField(200, "child_type");
      info.child = childType();
      if (r.field(201)) info.size = r.uleb();
      break;
    default:
      throw new QuackProtocolError(`type info kind ${info.kind} not supported`);
  }
  return info;
}

function typeOf(id: number, info: Info | null): SqlType {
  const alias = info?.alias ?? "";
  if (id === SCALAR_IDS.VARCHAR && alias === "JSON" && info?.kind === INFO_GENERIC) return { id: "JSON" };
  if (alias !== "") throw new QuackProtocolError(`type alias ${JSON.stringify(alias)} not supported`);
  switch (id) {
    case ID_DECIMAL:
      if (info?.kind !== INFO_DECIMAL) throw new QuackProtocolError("DECIMAL without decimal type info");
      return { id: "DECIMAL", width: info.width, scale: info.scale };
    case ID_LIST:
      if (info?.kind !== INFO_LIST || !info.child) throw new QuackProtocolError("LIST without child type");
      return { id: "LIST", child: info.child };
    case ID_MAP: {
      const child = info?.kind === INFO_LIST ? info.child : null;
      if (child?.id !== "STRUCT" || child.fields.length !== 2) {
        throw new QuackProtocolError("MAP without a STRUCT(key, value) child");
      }
      const [k, v] = child.fields as [{ name: string; type: SqlType }, { name: string; type: SqlType }];
      return { id: "MAP", key: k.type, value: v.type };
    }
    case ID_VARIANT:
      if (info?.kind !== INFO_STRUCT || JSON.stringify(info.fields) !== JSON.stringify(variantFields()))
        throw new QuackProtocolError("VARIANT without its physical struct type info");
      return { id: "VARIANT" };
    case ID_STRUCT:
      if (info?.kind !== INFO_STRUCT) throw new QuackProtocolError("STRUCT without struct type info");
      return { id: "STRUCT", fields: info.fields };
    case ID_ARRAY:
      if (info?.kind !== INFO_ARRAY || !info.child) throw new QuackProtocolError("ARRAY without child type");
      return { id: "ARRAY", child: info.child, size: info.size };
  }
  if (info) throw new QuackProtocolError(`type id ${id} with type info kind ${info.kind} not supported`);
  const name = SCALAR_BY_ID.get(id);
  if (!name) throw new QuackProtocolError(`logical type id ${id} not supported`);
  return { id: name };
}
