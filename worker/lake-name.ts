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
