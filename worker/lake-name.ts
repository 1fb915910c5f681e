/** Lake names: 1–63 lowercase letters, digits and "-", starting and ending with a letter or digit (a DNS label, safe in R2 keys and hostnames). */
export const LAKE_NAME_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function isLakeName(name: string): boolean {
  return LAKE_NAME_PATTERN.test(name);
}
