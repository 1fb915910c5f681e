/**
 * Registered files must lie inside the lake's own data path (catalog/file-paths.ts,
 * docs/decisions/0105-registered-file-paths.md), checked by the verbs for every entry point.
 */
import { describe, expect, it } from "vitest";
import { registeredPathProblem, tableDirOf } from "../../catalog/file-paths.ts";
import { tableFilesAt } from "../../catalog/index.ts";
import { cols, fresh, settle } from "./support.ts";

const DATA = "r2://ducklake-edge/lakes/lake-a/data/";
const TABLE_DIR = `${DATA}main/t/`;

/** Every path the issue found accepted, as `pathIsRelative: false`. */
const OUTSIDE = [
  "r2://ducklake-edge/lakes/lake-b/data/main/t/secret.parquet",
  "r2://other-bucket/x.parquet",
  "s3://nobody/zz.parquet",
  "/etc/passwd",
  "file:///etc/passwd",
  // Textually under the prefix, but a reader resolves it elsewhere.
  `${DATA}main/t/../../../lake-b/data/x.parquet`,
  `${DATA}main/%2e%2e/%2E%2E/lake-b/data/x.parquet`,
  `${DATA}main//t/x.parquet`,
  // The prefix without its '/': another lake whose name extends this one's.
  "r2://ducklake-edge/lakes/lake-a/data-evil/x.parquet",
  "r2://ducklake-edge/lakes/lake-ab/data/x.parquet",
];

describe("the registered-path rule", () => {
  it("accepts files inside the data path, relative or absolute", () => {
    expect(registeredPathProblem(DATA, TABLE_DIR, "f.parquet", true)).toBeNull();
    expect(registeredPathProblem(DATA, TABLE_DIR, "region=eu/f.parquet", true)).toBeNull();
    expect(registeredPathProblem(DATA, TABLE_DIR, `${DATA}main/t/f.parquet`, false)).toBeNull();
    expect(registeredPathProblem(DATA, TABLE_DIR, `${DATA}elsewhere/f.parquet`, false)).toBeNull();
    expect(registeredPathProblem("data", "data/main/t/", "f.parquet", true)).toBeNull();
  });

  it.each(OUTSIDE)("refuses the absolute path %s", (path) => {
    expect(registeredPathProblem(DATA, TABLE_DIR, path, false)).not.toBeNull();
  });

  it.each([
    "../../../lake-b/data/x.parquet",
    "%2e%2e/x.parquet",
    "./x.parquet",
    "/etc/passwd",
    "s3://nobody/zz.parquet",
    "a\\..\\b",
    "a\u0000b",
    "",
  ])("refuses the relative path %j", (path) => {
    expect(registeredPathProblem(DATA, TABLE_DIR, path, true)).not.toBeNull();
  });

  it("a lake with no data path registers nothing", () => {
    expect(registeredPathProblem("", "", "f.parquet", true)).not.toBeNull();
  });
});

describe("register_data_file / register_delete_file / flush_inlined enforce it", () => {
  async function lake() {
    const { store, catalog } = await fresh("paths", { dataPath: DATA });
    const out = await catalog.commit({ verbs: [{ op: "create_table", name: "t", columns: cols }] });
    await settle(store, out.durable);
    return { store, catalog };
  }

  it.each(OUTSIDE)("register_data_file refuses %s and commits nothing", async (path) => {
    const { store, catalog } = await lake();
    const before = await tableFilesAt(store.snapshot(), { name: "t" });
    await expect(
      catalog.commit({
        verbs: [
          {
            op: "register_data_file",
            table: { name: "t" },
            file: { path, pathIsRelative: false, recordCount: 1, fileSizeBytes: 10 },
          },
        ],
      }),
    ).rejects.toMatchObject({ code: "InvalidRequest", message: expect.stringContaining("data path") });
    const after = await tableFilesAt(store.snapshot(), { name: "t" });
    expect(after.snapshot_id).toBe(before.snapshot_id);
    expect(after.files).toEqual([]);
  });

  it("an absolute path inside the data path, and a plain relative one, are accepted", async () => {
    const { store, catalog } = await lake();
    const out = await catalog.commit({
      verbs: [
        {
          op: "register_data_file",
          table: { name: "t" },
          file: { path: `${DATA}main/t/a.parquet`, pathIsRelative: false, recordCount: 1, fileSizeBytes: 10 },
        },
        {
          op: "register_data_file",
          table: { name: "t" },
          file: { path: "b.parquet", recordCount: 1, fileSizeBytes: 10 },
        },
      ],
    });
    await settle(store, out.durable);
    const plan = await tableFilesAt(store.snapshot(), { name: "t" });
    expect(plan.files.map((f) => f.resolved_path)).toEqual([
      `${DATA}main/t/a.parquet`,
      `${DATA}main/t/b.parquet`,
    ]);
  });

  it("register_delete_file refuses a delete file outside the data path", async () => {
    const { store, catalog } = await lake();
    const out = await catalog.commit({
      verbs: [
        {
          op: "register_data_file",
          table: { name: "t" },
          file: { path: "a.parquet", recordCount: 2, fileSizeBytes: 10 },
        },
      ],
    });
    await settle(store, out.durable);
    for (const [path, pathIsRelative] of [
      ["s3://nobody/del.parquet", false],
      ["../../../lake-b/data/del.parquet", true],
    ] as const) {
      await expect(
        catalog.commit({
          verbs: [
            {
              op: "register_delete_file",
              table: { name: "t" },
              dataFileId: 0,
              file: { path, pathIsRelative, deleteCount: 1, fileSizeBytes: 5 },
            },
          ],
        }),
      ).rejects.toMatchObject({
        code: "InvalidRequest",
        message: expect.stringContaining("cannot be registered"),
      });
    }
  });

  it("flush_inlined refuses a flushed file outside the data path", async () => {
    const { store, catalog } = await lake();
    const ins = await catalog.commit({
      verbs: [
        { op: "set_option", name: "data_inlining_row_limit", value: "10" },
        { op: "inline_insert", table: { name: "t" }, rows: [{ id: 1 }] },
      ],
    });
    await settle(store, ins.durable);
    await expect(
      catalog.commit({
        verbs: [
          {
            op: "flush_inlined",
            table: { name: "t" },
            throughRowId: 0,
            file: { path: "file:///etc/passwd", pathIsRelative: false, recordCount: 1, fileSizeBytes: 10 },
          },
        ],
      }),
    ).rejects.toMatchObject({
      code: "InvalidRequest",
      message: expect.stringContaining("cannot be registered"),
    });
  });
});

describe("a lake whose data path the writer cannot reach (decisions 0502, 0601)", () => {
  const LOCAL = "/srv/lakes/local-a/";
  async function lake(dataPath: string) {
    // The host names its own prefix (DATA), as the lake writer does.
    const { store, catalog } = await fresh("ext-paths", { dataPath, ownDataPath: DATA });
    const out = await catalog.commit({ verbs: [{ op: "create_table", name: "t", columns: cols }] });
    await settle(store, out.durable);
    return { store, catalog };
  }
  const register = (path: string, pathIsRelative: boolean) => ({
    verbs: [
      {
        op: "register_data_file" as const,
        table: { name: "t" },
        file: { path, pathIsRelative, recordCount: 1, fileSizeBytes: 10 },
      },
    ],
  });

  it("registers an absolute path outside its data path where DuckDB put it (ducklake_add_data_files)", async () => {
    const { store, catalog } = await lake(LOCAL);
    const out = await catalog.commit(register("/tmp/elsewhere/added.parquet", false));
    await settle(store, out.durable);
    const plan = await tableFilesAt(store.snapshot(), { name: "t" });
    expect(plan.files.map((f) => f.resolved_path)).toEqual(["/tmp/elsewhere/added.parquet"]);
  });

  it("still refuses a relative path leaving the table's directory, and a control character", async () => {
    const { catalog } = await lake(LOCAL);
    for (const [path, relative] of [
      ["../../../x.parquet", true],
      ["/tmp/a\u0001b.parquet", false],
    ] as const) {
      await expect(catalog.commit(register(path, relative))).rejects.toMatchObject({
        code: "InvalidRequest",
        message: expect.stringContaining("cannot be registered"),
      });
    }
  });

  it.each(OUTSIDE)("a lake the writer reaches keeps decision 0105 in full: %s is refused", async (path) => {
    const { catalog } = await lake(DATA);
    await expect(catalog.commit(register(path, false))).rejects.toMatchObject({ code: "InvalidRequest" });
  });
});

describe("refusal texts", () => {
  it("never carry DuckLake's retry words, even when the lake's name holds one", () => {
    const data = "r2://b/lakes/conflict-unique/data/";
    const text = registeredPathProblem(data, `${data}main/t/`, "s3://x/y.parquet", false) ?? "";
    expect(text).not.toBe("");
    expect(text.toLowerCase()).not.toMatch(/conflict|unique|concurrent|primary key/);
  });
});

describe("a table's directory (tableDirOf, the one resolution every reader and writer uses)", () => {
  it("data path → schema path → table path, each relative unless stored absolute", () => {
    const rel = (path: string) => ({ path, path_is_relative: true });
    const abs = (path: string) => ({ path, path_is_relative: false });
    expect(tableDirOf(DATA, rel("main/"), rel("t/"))).toBe(TABLE_DIR);
    expect(tableDirOf(DATA.slice(0, -1), rel("main/"), rel("t/"))).toBe(TABLE_DIR);
    expect(tableDirOf(DATA, abs("r2://b/s/"), rel("t/"))).toBe("r2://b/s/t/");
    expect(tableDirOf(DATA, rel("main/"), abs("r2://b/t/"))).toBe("r2://b/t/");
    expect(tableDirOf("", rel("main/"), rel("t/"))).toBe("main/t/");
  });
});
