/**
 * A lake's metadata-schema catalogs (`<lake>.<schema>`, docs/decisions/0721-metadata-schemas.md) share its
 * lifecycle over real miniflare R2 and Durable Objects: a delete and a purge of the lake reach them, the
 * lake list never shows them as lakes, and none is created while the lake is deleted.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { lakeState } from "../../storage/lakes.ts";
import { isLakeName, metadataSchemaLake, schemaCatalogParts } from "../../worker/lake-name.ts";
import { callWriter } from "../../worker/lake-rpc.ts";
import { schemaCatalogMayBeCreated, schemaCatalogsOf } from "../../worker/schema-catalogs.ts";
import { call } from "../support/http.ts";

const createCatalog = (name: string) => callWriter(env, name, (stub) => stub.createLake(name));

describe("metadata-schema catalogs go with their lake", () => {
  it("are named apart from every lake, and the name gives back its lake and schema", () => {
    const name = metadataSchemaLake("sales", "metadata_s1");
    expect(isLakeName(name)).toBe(false);
    expect(schemaCatalogParts(name)).toEqual({ lake: "sales", schema: "metadata_s1" });
    expect(schemaCatalogParts("sales")).toBeNull();
  });

  it("are listed by their lake, hidden from the lake list, deleted and purged with it", async () => {
    expect((await call("/v1/lakes/sch", { method: "PUT", body: {} })).status).toBe(201);
    // A lake whose name extends this one's is not one of its catalogs.
    expect((await call("/v1/lakes/sch2", { method: "PUT", body: {} })).status).toBe(201);
    const s1 = metadataSchemaLake("sch", "metadata_s1");
    const s2 = metadataSchemaLake("sch", "metadata_s2");
    await createCatalog(s1);
    await createCatalog(s2);
    expect(await schemaCatalogsOf(env.BUCKET, "sch")).toEqual([s1, s2]);
    expect(await schemaCatalogMayBeCreated(env.BUCKET, "sch")).toBe(true);

    const list = (await (await call("/v1/lakes")).json()) as { lakes: { name: string }[] };
    expect(list.lakes.map((l) => l.name)).toEqual(expect.arrayContaining(["sch", "sch2"]));
    expect(list.lakes.map((l) => l.name).filter((n) => n.includes("."))).toEqual([]);

    expect((await call("/v1/lakes/sch", { method: "DELETE" })).status).toBe(202);
    expect((await lakeState(env.BUCKET, s1)).state).toBe("deleted");
    expect((await lakeState(env.BUCKET, s2)).state).toBe("deleted");
    expect((await lakeState(env.BUCKET, "sch2")).state).toBe("live");
    // While the lake is deleted, no catalog of it may be created (a recreated lake must start empty).
    expect(await schemaCatalogMayBeCreated(env.BUCKET, "sch")).toBe(false);

    const purge = await call("/v1/lakes/sch?purge=true", { method: "DELETE" });
    expect(purge.status).toBe(200);
    const purged = (await purge.json()) as { purged: boolean; objectsRemoved: number };
    expect(purged.purged).toBe(true);
    for (const name of [s1, s2]) {
      const left = await env.BUCKET.list({ prefix: `lakes/${name}/` });
      expect(left.objects.map((o) => o.key)).toEqual([`lakes/${name}/wal/00000000000000000000.deleted`]);
    }
  });

  it("a lake never created lets its catalogs go and still answers 404", async () => {
    const s = metadataSchemaLake("nolake", "metadata_s1");
    await createCatalog(s);
    expect((await call("/v1/lakes/nolake", { method: "DELETE" })).status).toBe(404);
    expect((await lakeState(env.BUCKET, s)).state).toBe("deleted");
  });
});
