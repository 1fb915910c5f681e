/** The stored form of an inlined value and the one error every value rule raises. */
import { InvalidRequest, quoteName } from "../errors.ts";

/** A value as the catalog stores it (canonical JSON; see `index.ts` for the form per type). */
export type StoredValue = string | number | boolean | null | StoredValue[] | { [key: string]: StoredValue };

/** Longest excerpt of a refused value that an error text repeats. */
const VALUE_EXCERPT_CHARS = 60;

function excerpt(value: StoredValue): string {
  const text = typeof value === "string" ? quoteName(value) : JSON.stringify(value);
  return text.length > VALUE_EXCERPT_CHARS ? `${text.slice(0, VALUE_EXCERPT_CHARS)}…` : text;
}

/**
 * Refuses a value: `path` names where it is (`rows[3].price`, `rows[0].tags[2]`, `rows[1].m[0].key`),
 * the text says the type and why. InvalidRequest (400): the request carries a value its column cannot hold.
 */
export function refuse(path: string, type: string, value: StoredValue, why: string): never {
  throw new InvalidRequest(`${path}: ${excerpt(value)} is not a valid ${type} value: ${why}`);
}

/**
 * Column and struct field names fold case (DuckDB's identifiers do), so `{"ID": 1, "id": 2}` names one
 * column twice: refused with the column's name rather than one value silently dropped (decision 0403).
 */
export function refuseFoldedTwice(
  seen: Map<string, string>,
  key: string,
  column: string,
  path: string,
): void {
  const earlier = seen.get(column);
  if (earlier !== undefined) {
    throw new InvalidRequest(
      `${path}: keys ${quoteName(earlier)} and ${quoteName(key)} both name ${quoteName(column)}; send it once`,
    );
  }
  seen.set(column, key);
}
