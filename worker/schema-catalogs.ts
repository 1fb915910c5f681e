/**
 * The metadata-schema catalogs of a lake (docs/decisions/0721-metadata-schemas.md): lakes named
 * `<lake>.<schema>` (`metadataSchemaLake`). They share their lake's lifecycle: deleted and purged with it,
 * and never created while it is deleted (a recreated lake must not find an earlier lake's catalogs).
 */
import type { Bucket } from "../storage/api.ts";
import { lakeState, listLakeNames } from "../storage/lakes.ts";
import { ApiError } from "./errors.ts";
import { metadataSchemaLake } from "./lake-name.ts";

/** Most metadata-schema catalogs one lake's delete or purge reaches; past it the call is refused by name. */
export const MAX_SCHEMA_CATALOGS = 10_000;
/** Names per listing page (R2's most). */
const LIST_PAGE = 1000;

/** Every metadata-schema catalog of `lake` with any object in the bucket (live or being removed). */
export async function schemaCatalogsOf(bucket: Bucket, lake: string): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await listLakeNames(bucket, {
      namePrefix: metadataSchemaLake(lake, ""),
      limit: LIST_PAGE,
      ...(cursor !== undefined ? { cursor } : {}),
    });
    out.push(...page.lakes);
    if (out.length > MAX_SCHEMA_CATALOGS) {
      throw new ApiError(
        "Unsupported",
        `lake '${lake}' has more than ${MAX_SCHEMA_CATALOGS} metadata-schema catalogs, more than one call reaches`,
      );
    }
    cursor = page.cursor;
  } while (cursor !== undefined);
  return out;
}

/** A metadata-schema catalog of `lake` may be created unless the lake is deleted (its name not yet free). */
export async function schemaCatalogMayBeCreated(bucket: Bucket, lake: string): Promise<boolean> {
  return (await lakeState(bucket, lake)).state !== "deleted";
}
