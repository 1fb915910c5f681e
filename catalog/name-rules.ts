/**
 * What a name may hold. Every name a verb carries (schema, table, view, macro, column, macro parameter,
 * tag key, option name, and every reference by name) passes this one rule through the verb schema, so a
 * name the catalog stores is one DuckDB and every other engine can spell back: no control characters
 * (U+0000–U+001F, U+007F–U+009F, NUL included) and no unpaired UTF-16 surrogate (which has no UTF-8 form,
 * so it cannot be written to Parquet, CSV or DuckDB's catalog). Decision: docs/decisions/0101-names.md.
 */

/** Longest name a verb may carry, in UTF-16 code units. */
export const MAX_NAME_LENGTH = 1024;

/**
 * The one control-character set (Unicode general category Cc: U+0000–U+001F and U+007F–U+009F), refused
 * in names, data paths (`data-path.ts`) and registered file paths (`file-paths.ts`).
 */
export const CONTROL_CHARACTER = /\p{Cc}/u;
// With the `u` flag a lone surrogate is one code point of general category Cs; a paired one is not.
const LONE_SURROGATE = /\p{Cs}/u;

/** Why `name` cannot be a catalog name, or null when it can. */
export function nameProblem(name: string): string | null {
  if (name.length === 0) return "a name must not be empty";
  if (name.length > MAX_NAME_LENGTH) return `a name must be at most ${MAX_NAME_LENGTH} characters`;
  const control = CONTROL_CHARACTER.exec(name);
  if (control) {
    const code = (control[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
    return `a name must not contain control characters (found U+${code} at position ${control.index})`;
  }
  const lone = LONE_SURROGATE.exec(name);
  if (lone) {
    return `a name must be valid Unicode text (an unpaired surrogate is at position ${lone.index})`;
  }
  return null;
}
