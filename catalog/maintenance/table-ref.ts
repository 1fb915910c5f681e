/**
 * The table a maintenance run is asked to work on (`POST …/maintenance` with `table`), resolved against
 * the latest catalog by DuckLake's case-insensitive name rule.
 */
import type { ReadView } from "../../storage/api.ts";
import { NotFound, quoteName } from "../errors.ts";
import { foldName } from "../keys.ts";
import { catalogAt } from "../reads/catalog-at.ts";

export async function liveTableId(view: ReadView, ref: { schema?: string; name: string }): Promise<number> {
  const schema = foldName(ref.schema ?? "main");
  const name = foldName(ref.name);
  const t = (await catalogAt(view)).tables.find(
    (x) => foldName(x.schema_name) === schema && foldName(x.table_name) === name,
  );
  if (!t)
    throw new NotFound(`table ${quoteName(ref.schema ?? "main")}.${quoteName(ref.name)} does not exist`);
  return t.table_id;
}
