/**
 * Opening a store: adopt an initialized catalog (checking its format stamp), or bootstrap an empty store
 * in one batch — format stamp, snapshot 0 exactly as a fresh DuckLake catalog has it (schema_version 0,
 * next_catalog_id 1, next_file_id 0, `created_schema:"main"`), the `main` schema (id 0), the global
 * ducklake_metadata rows, and the head at snapshot 0, batch count 0 — under the same head conflict as any
 * commit, so two racing opens settle on one catalog.
 */
import type { Store } from "../storage/api.ts";
import { MAX_OPEN_ATTEMPTS, retryOnConflict } from "./batch-retry.ts";
import { decodeValue, encodeValue, ValueKind } from "./codec.ts";
import { corruption } from "./errors.ts";
import { foldName, hash53, Kind, keys, NameSpace, OptionScope } from "./keys.ts";
import type { FormatRecord, HeadRecord, OptionRecord, SchemaRecord, SnapshotRecord } from "./records.ts";

export const FORMAT_VERSION = 1;
export const WRITER = "ducklake-edge 0.1.0";
export const DUCKLAKE_VERSION = "1.0";
export const DEFAULT_DATA_PATH = "data/";

export interface BootstrapOptions {
  now: () => number;
  dataPath: string;
  uuid: () => string;
  /** DuckLake's `ENCRYPTED` ATTACH option: files are encrypted, each file's key kept in its catalog row. */
  encrypted?: boolean;
}

/** Returns true when this call bootstrapped the store, false when it adopted an existing catalog. */
export async function bootstrapOrAdopt(store: Store, options: BootstrapOptions): Promise<boolean> {
  // Another open that bootstrapped first makes this commit lose the race: the next attempt adopts it.
  return retryOnConflict(store, MAX_OPEN_ATTEMPTS, openRaced, async (tx) => {
    const raw = await tx.get(keys.format());
    if (raw !== undefined) {
      const format = decodeValue<FormatRecord>(ValueKind.format, raw, "format stamp");
      if (format.format_version !== FORMAT_VERSION) {
        throw corruption(
          `catalog format version ${format.format_version} is not one this build reads (${FORMAT_VERSION}); open it with the writer that made it`,
        );
      }
      return false;
    }
    if ((await tx.get(keys.head())) !== undefined)
      throw corruption("the store has a head but no format stamp");
    const dataPath = options.dataPath.endsWith("/") ? options.dataPath : `${options.dataPath}/`;
    const uuid = options.uuid();
    const snapshot: SnapshotRecord = {
      snapshot_id: 0,
      snapshot_time: Math.floor(options.now() * 1000),
      schema_version: 0,
      next_catalog_id: 1,
      next_file_id: 0,
      changes_made: 'created_schema:"main"',
      author: null,
      commit_message: null,
      commit_extra_info: null,
      x_touched_table_ids: [],
      x_deleted_data_file_ids: [],
      x_deletes_untargeted: false,
    };
    const main: SchemaRecord = {
      schema_id: 0,
      schema_uuid: uuid,
      begin_snapshot: 0,
      end_snapshot: null,
      schema_name: "main",
      path: "main/",
      path_is_relative: true,
    };
    const metadata: OptionRecord = {
      scope: null,
      scope_id: null,
      values: {
        version: DUCKLAKE_VERSION,
        created_by: WRITER,
        data_path: dataPath,
        encrypted: options.encrypted === true ? "true" : "false",
      },
    };
    const head: HeadRecord = { snapshot_id: 0, batch_count: 0 };
    tx.put(keys.format(), encodeValue(ValueKind.format, { format_version: FORMAT_VERSION, writer: WRITER }));
    tx.put(keys.snapshot(0), encodeValue(ValueKind.snapshot, snapshot));
    tx.put(keys.current(Kind.schema, 0), encodeValue(ValueKind.schema, main));
    tx.put(
      keys.name(NameSpace.schema, 0, hash53(foldName("main"))),
      encodeValue(ValueKind.nameEntries, [{ name: "main", id: 0, kind: "schema" }]),
    );
    tx.put(keys.current(Kind.option, OptionScope.global, 0), encodeValue(ValueKind.option, metadata));
    tx.put(keys.head(), encodeValue(ValueKind.head, head));
    tx.commit();
    return true;
  });
}

const openRaced = (bound: number): Error =>
  corruption(
    `the store kept changing while the catalog was being opened (${bound} attempts lost a race); reopen the lake`,
  );
