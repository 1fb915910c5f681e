/**
 * ducklake_rewrite_data_files' file listing: merge_adjacent_files' listing without the size bound
 * (statement text as DuckLake 1.5.5 sent it in the conformance run, literals restored).
 */
import { describe, expect, it } from "vitest";
import { head } from "../../../catalog/index.ts";
import { answerRead, findReadTemplate, splitStatements } from "../../../catalog/sql/index.ts";
import { fresh } from "../support.ts";

const SQL =
  'WITH snapshot_ranges AS ( SELECT begin_snapshot , COALESCE ( LEAD ( begin_snapshot ) OVER ( ORDER BY begin_snapshot ) , 9223372036854775807 ) AS end_snapshot , schema_version FROM "main" . ducklake_schema_versions WHERE table_id = 1 ORDER BY begin_snapshot ) SELECT data . data_file_id , data . record_count , data . row_id_start , data . begin_snapshot , data . end_snapshot , data . mapping_id , sr . schema_version , data . partial_max , data . partition_id , partition_info . keys , data . path AS data_path , data . path_is_relative AS data_path_is_relative , data . file_size_bytes AS data_file_size_bytes , data . footer_size AS data_footer_size , del . data_file_id AS del_data_file_id , del . delete_file_id AS del_delete_file_id , del . delete_count , del . begin_snapshot AS del_begin_snapshot , del . end_snapshot AS del_end_snapshot , del . partial_max AS del_partial_max , del . path AS del_path , del . path_is_relative AS del_path_is_relative , del . file_size_bytes AS del_file_size_bytes , del . footer_size AS del_footer_size , del . format AS del_format FROM "main" . ducklake_data_file data LEFT JOIN snapshot_ranges sr ON data . begin_snapshot >= sr . begin_snapshot AND data . begin_snapshot < sr . end_snapshot LEFT JOIN ( SELECT * FROM "main" . ducklake_delete_file WHERE table_id = 1 ) del USING ( data_file_id ) LEFT JOIN ( SELECT data_file_id , ARRAY_AGG ( partition_value ORDER BY partition_key_index ) keys FROM "main" . ducklake_file_partition_value GROUP BY data_file_id ) partition_info USING ( data_file_id ) WHERE data . table_id = 1 AND data . end_snapshot is null ORDER BY data . begin_snapshot , data . row_id_start , data . data_file_id , del . begin_snapshot';

describe("rewrite_data_files candidates", () => {
  it("recognises stock's listing and answers merge's 25 columns over a table without files", async () => {
    const [stmt] = splitStatements(SQL);
    if (!stmt) throw new Error("no statement");
    expect(findReadTemplate(stmt)?.name).toBe("maintenance.rewrite_candidates");
    const { store } = await fresh("qg-rewrite-candidates", { dataPath: "data/" });
    const view = store.snapshot();
    await head(view);
    const res = await answerRead({ view, memo: new Map() }, stmt);
    expect(res.columns.map((c) => c.name).slice(0, 7)).toEqual([
      "data_file_id",
      "record_count",
      "row_id_start",
      "begin_snapshot",
      "end_snapshot",
      "mapping_id",
      "schema_version",
    ]);
    expect(res.columns).toHaveLength(25);
    expect(res.rows).toEqual([]);
  });
});
