/** Lake names: 1–63 lowercase letters, digits and "-", starting and ending with a letter or digit (a DNS label, safe in R2 keys and hostnames). */
export const LAKE_NAME_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function isLakeName(name: string): boolean {
  return LAKE_NAME_PATTERN.test(name);
}

/**
 * The catalog that serves metadata schema `schema` of `lake` (DuckLake's METADATA_SCHEMA option): a lake
 * of its own, named `<lake>.<schema>`. The `.` is outside every lake name, so no lake created by name can
 * be one, and a schema's catalog is found from its lake's name alone (docs/decisions/0721-metadata-schemas.md).
 */
export function metadataSchemaLake(lake: string, schema: string): string {
  return `${lake}.${schema}`;
}

/** The lake and schema a metadata-schema catalog's name stands for; null for a lake's own name. */
export function schemaCatalogParts(name: string): { lake: string; schema: string } | null {
  const dot = name.indexOf(".");
  return dot < 0 ? null : { lake: name.slice(0, dot), schema: name.slice(dot + 1) };
}
