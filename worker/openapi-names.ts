/**
 * Names for the OpenAPI document's operations, derived from each route so they never drift: an
 * `operationId` (method + the path's words, e.g. `getLakeTableRows`) and one tag, the path's first word
 * after the lake (`lakes`, `tables`, `commits`, `quack`, ...). Decision 0485.
 */

interface Operation {
  operationId?: string;
  tags?: string[];
}

type Doc = { paths?: object };

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

const word = (s: string): string =>
  s.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase());
const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** The operationId of `method path`: `get` + each segment, parameters as `By<Name>`. */
export function operationIdOf(method: string, path: string): string {
  const parts = path
    .split("/")
    .filter((p) => p !== "" && p !== "v1")
    .map((p) => (p.startsWith("{") ? `By${cap(word(p.slice(1, -1)))}` : cap(word(p))));
  return `${method}${parts.join("")}`;
}

/** The tag of a path: its first word after `/v1/lakes/{lake}` (or after `/v1`). */
export function tagOf(path: string): string {
  const parts = path.split("/").filter((p) => p !== "" && p !== "v1");
  if (parts[0] === "lakes" && parts.length > 2) return parts[2] ?? "lakes";
  return parts[0] ?? "root";
}

/** The document with every operation named and tagged, and the tags listed. */
export function withOperationIds<T extends Doc>(doc: T): T & { tags: { name: string }[] } {
  const tags = new Set<string>();
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (!op) continue;
      op.operationId ??= operationIdOf(method, path);
      op.tags ??= [tagOf(path)];
      for (const t of op.tags) tags.add(t);
    }
  }
  return { ...doc, tags: [...tags].sort().map((name) => ({ name })) };
}
