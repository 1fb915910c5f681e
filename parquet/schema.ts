/**
 * ParquetField → the Parquet schema elements DuckDB reads back as the intended type. Legacy converted
 * types are used for integers, decimals, strings and dates (DuckDB reads them exactly); logical types
 * only for timestamps with a unit or time zone and for UUIDs (decision record
 * `docs/decisions/0300-parquet-library.md` says why).
 */
import type { SchemaElement } from "hyparquet";
import { ParquetUnsupported } from "./errors.ts";
import type { ParquetField, ParquetType } from "./types.ts";

export function schemaElements(fields: readonly ParquetField[]): SchemaElement[] {
  const out: SchemaElement[] = [{ name: "root", num_children: fields.length }];
  for (const f of fields) pushField(out, f);
  return out;
}

function base(f: ParquetField): SchemaElement {
  const el: SchemaElement = { name: f.name, repetition_type: f.nullable ? "OPTIONAL" : "REQUIRED" };
  if (f.fieldId !== undefined) el.field_id = f.fieldId;
  return el;
}

function pushField(out: SchemaElement[], f: ParquetField): void {
  const t = f.type;
  const el = base(f);
  switch (t.kind) {
    case "list":
      out.push({ ...el, converted_type: "LIST", num_children: 1 });
      out.push({ name: "list", repetition_type: "REPEATED", num_children: 1 });
      pushField(out, { ...t.element, name: "element" });
      return;
    case "map":
      out.push({ ...el, converted_type: "MAP", num_children: 1 });
      out.push({ name: "key_value", repetition_type: "REPEATED", num_children: 2 });
      pushField(out, { ...t.key, name: "key", nullable: false });
      pushField(out, { ...t.value, name: "value" });
      return;
    case "struct":
      if (t.fields.length === 0) throw new ParquetUnsupported(`struct ${f.name} has no fields`);
      out.push({ ...el, num_children: t.fields.length });
      for (const c of t.fields) pushField(out, c);
      return;
    default:
      out.push({ ...el, ...leafElement(t, f.name) });
  }
}

function leafElement(t: ParquetType, name: string): Omit<SchemaElement, "name"> {
  switch (t.kind) {
    case "boolean":
      return { type: "BOOLEAN" };
    case "int": {
      const physical = t.bits === 64 ? "INT64" : "INT32";
      if (t.bits === 32 && t.signed) return { type: physical };
      if (t.bits === 64 && t.signed) return { type: physical };
      const converted = `${t.signed ? "INT" : "UINT"}_${t.bits}` as SchemaElement["converted_type"];
      return { type: physical, converted_type: converted };
    }
    case "float":
      return { type: "FLOAT" };
    case "double":
      return { type: "DOUBLE" };
    case "decimal": {
      if (
        !Number.isInteger(t.precision) ||
        t.precision < 1 ||
        t.precision > 38 ||
        t.scale < 0 ||
        t.scale > t.precision
      ) {
        throw new ParquetUnsupported(`decimal(${t.precision},${t.scale}) of ${name} is not a valid decimal`);
      }
      const dec = { converted_type: "DECIMAL" as const, precision: t.precision, scale: t.scale };
      if (t.precision <= 9) return { type: "INT32", ...dec };
      if (t.precision <= 18) return { type: "INT64", ...dec };
      return { type: "FIXED_LEN_BYTE_ARRAY", type_length: 16, ...dec };
    }
    case "string":
      return { type: "BYTE_ARRAY", converted_type: "UTF8" };
    case "json":
      return { type: "BYTE_ARRAY", converted_type: "JSON" };
    case "blob":
      return { type: "BYTE_ARRAY" };
    case "uuid":
      return { type: "FIXED_LEN_BYTE_ARRAY", type_length: 16, logical_type: { type: "UUID" } };
    case "date":
      return { type: "INT32", converted_type: "DATE" };
    case "time":
      return { type: "INT64", converted_type: "TIME_MICROS" };
    case "timestamp": {
      const unit = t.unit === "ms" ? "MILLIS" : t.unit === "us" ? "MICROS" : "NANOS";
      return { type: "INT64", logical_type: { type: "TIMESTAMP", isAdjustedToUTC: t.utc, unit } };
    }
    default:
      throw new ParquetUnsupported(`column ${name}: type ${t.kind} is not a leaf type`);
  }
}
