/**
 * The Quack front door over HTTP: auth and lake selection at CONNECTION, stateless signed connection ids
 * (revocation takes effect on the next message), reads at the edge, writes refused for read tokens, FETCH
 * paging, and errors that carry their text.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { SqlResult, SqlValue } from "../../../catalog/sql/result.ts";
import { computedQuackLines } from "../../../cli/quack.ts";
import { handleQuack, prepareResponse } from "../../../worker/quack/handler.ts";
import {
  decodeEnvelope,
  encodeEnvelope,
  MAX_MESSAGE_BYTES,
  type Message,
  MessageType,
} from "../../../worker/quack/messages.ts";
import { quackRecipe } from "../../../worker/quack/recipe.ts";
import { FETCH_CHUNKS, MAX_HELD_RESULTS_PER_OWNER, ResultStore } from "../../../worker/quack/results.ts";
import { openSession, resumeSession } from "../../../worker/quack/session.ts";
import capturedReads from "../../fixtures/quack/captured-reads.json";
import { call, TOKENS } from "../../support/http.ts";
import writes from "../../support/quack-writes.ts";
import { connect, connectRequest, post, prepare } from "./client.ts";

const SCHEMATA =
  "\nSELECT catalog_name, schema_name\nFROM information_schema.schemata\nWHERE catalog_name NOT IN ('system', 'temp')\nORDER BY ALL\n\t";

function errorText(m: Message): string {
  if (m.type !== MessageType.ERROR_RESPONSE)
    throw new Error(`expected an error, got ${JSON.stringify(m.type)}`);
  return m.message;
}

beforeAll(async () => {
  expect((await call("/v1/lakes/sales", { method: "PUT" })).status).toBe(201);
});

describe("Quack endpoint basics", () => {
  it("answers GET / and OPTIONS /quack as stock does", async () => {
    const root = await call("/", { token: null });
    expect(root.status).toBe(200);
    expect(await root.text()).toContain("Quack RPC endpoint");
    const pre = await call("/quack", { method: "OPTIONS", token: null });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    expect(pre.headers.get("access-control-allow-methods")).toBe("GET, POST, OPTIONS");
  });

  it("answers a malformed body and an oversized one with an ERROR_RESPONSE", async () => {
    expect(errorText(await post(connectRequest(""), "", new Uint8Array([1, 2, 3])))).toMatch(
      /expected field 1 \(type\) at offset 0/,
    );
    const res = await call("/quack", {
      method: "POST",
      token: null,
      rawBody: new Uint8Array(MAX_MESSAGE_BYTES + 1),
    });
    const m = decodeEnvelope(new Uint8Array(await res.arrayBuffer())).message;
    expect(errorText(m)).toMatch(/exceeds the limit/);
  });
});

describe("CONNECTION: token and lake selection", () => {
  it("refuses no token, an unknown token, and a token for another lake", async () => {
    await expect(connect("")).rejects.toThrow(/Authentication failed: no token/);
    await expect(connect("sales:not-a-real-token-at-all")).rejects.toThrow(/token is not recognised/);
    await expect(connect(`other:${TOKENS.writeSales}`)).rejects.toThrow(/not valid for lake 'other'/);
  });

  it("takes `<lake>:<token>`, or a bare token covering exactly one lake", async () => {
    expect(await connect(`sales:${TOKENS.readSales}`)).toMatch(/^sales\./);
    expect(await connect(TOKENS.readSales)).toMatch(/^sales\./);
    await expect(connect(TOKENS.adminAll)).rejects.toThrow(/covers several lakes; name one/);
  });

  it("refuses a missing lake unless the token is an admin's", async () => {
    await expect(connect(`nolake:${TOKENS.writeSales}`)).rejects.toThrow(/not valid for lake 'nolake'/);
    expect(await connect(`brand-new:${TOKENS.adminAll}`)).toMatch(/^brand-new\./);
  });

  it("rejects a tampered or foreign connection id", async () => {
    const id = await connect(`sales:${TOKENS.readSales}`);
    const tampered = id.replace(/^sales\./, "other.");
    expect(errorText(await prepare(tampered, SCHEMATA))).toMatch(/Invalid connection id/);
    expect(errorText(await prepare("0123456789ABCDEF0123456789ABCDEF", SCHEMATA))).toMatch(
      /Invalid connection id/,
    );
  });

  it("checks the connection id against the current tokens: a revoked token stops working", async () => {
    const before = {
      AUTH_TOKENS: JSON.stringify({ "t-temporary-0123456789": { lakes: ["sales"], scope: "write" } }),
      QUACK_SESSION_SECRET: "k",
    };
    const { connectionId } = await openSession(before, "sales:t-temporary-0123456789", 1000);
    expect((await resumeSession(before, connectionId, 2000)).grant.scope).toBe("write");
    const revoked = {
      ...before,
      AUTH_TOKENS: JSON.stringify({ "t-someone-else-0123456789": { lakes: ["sales"], scope: "write" } }),
    };
    await expect(resumeSession(revoked, connectionId, 2000)).rejects.toThrow(/no longer valid/);
    const downgraded = {
      ...before,
      AUTH_TOKENS: JSON.stringify({ "t-temporary-0123456789": { lakes: ["sales"], scope: "read" } }),
    };
    expect((await resumeSession(downgraded, connectionId, 2000)).grant.scope).toBe("read");
    await expect(resumeSession(before, connectionId, 1000 + 25 * 3600 * 1000)).rejects.toThrow(/expired/);
  });
});

describe("PREPARE", () => {
  it("answers a catalog-load read at the edge", async () => {
    const id = await connect(`sales:${TOKENS.readSales}`);
    const m = await prepare(id, SCHEMATA);
    expect(
      m.type,
      JSON.stringify(m, (_k, v) => (typeof v === "bigint" ? String(v) : v)),
    ).toBe(MessageType.PREPARE_RESPONSE);
    if (m.type !== MessageType.PREPARE_RESPONSE) return;
    expect(m.names).toEqual(["catalog_name", "schema_name"]);
    expect(m.types).toEqual([{ id: "VARCHAR" }, { id: "VARCHAR" }]);
    expect(m.needsMoreFetch).toBe(false);
  });

  it("a commit between two catalog loads is seen by the next one (memos are per published cut)", async () => {
    const id = await connect(`sales:${TOKENS.writeSales}`);
    const listing = capturedReads.reads[1]?.example ?? "";
    const rows = async (): Promise<number> => {
      const m = await prepare(id, listing);
      if (m.type !== MessageType.PREPARE_RESPONSE) throw new Error(JSON.stringify(m.type));
      return m.results.reduce((n, ch) => n + ch.rows, 0);
    };
    const before = await rows();
    expect(await rows()).toBe(before);
    const res = await call("/v1/lakes/sales/commits", {
      method: "POST",
      body: { verbs: [{ op: "create_table", name: "memo_probe", columns: [{ name: "id", type: "int64" }] }] },
    });
    expect(res.status, await res.text()).toBe(200);
    // The new table's inlined-data table is listed at once: a new cut is a new memo.
    expect(await rows()).toBe(before + 1);
  });

  it("refuses an unrecognised statement by its shape", async () => {
    const id = await connect(`sales:${TOKENS.readSales}`);
    expect(errorText(await prepare(id, "SELECT 42 FROM nowhere WHERE x = 'secret'"))).toMatch(
      /not recognised.*SELECT \? FROM nowhere WHERE x = \?/,
    );
  });

  it("refuses any write from a read token, without running it", async () => {
    const id = await connect(`sales:${TOKENS.readSales}`);
    const text = errorText(
      await prepare(id, 'INSERT INTO "main".ducklake_snapshot VALUES (1, NOW(), 1, 2, 0)'),
    );
    expect(text).toMatch(/read scope on lake 'sales'.*was not run/);
  });

  it("applies an APPEND_REQUEST from a write token and refuses it from a read token (decision 0710)", async () => {
    const tag = (value: string): Message => ({
      type: MessageType.APPEND_REQUEST,
      schema: "main",
      table: "ducklake_tag",
      chunk: {
        types: [{ id: "BIGINT" }, { id: "BIGINT" }, { id: "BIGINT" }, { id: "VARCHAR" }, { id: "VARCHAR" }],
        columns: [[0n], [0n], [null], [`append-${value}`], [value]],
        rows: 1,
      },
    });
    const reader = await connect(`sales:${TOKENS.readSales}`);
    expect(errorText(await post(tag("r"), reader))).toMatch(
      /read scope on lake 'sales'.*APPEND main.ducklake_tag.*was not run/,
    );
    const writer = await connect(`sales:${TOKENS.writeSales}`);
    expect((await post(tag("w"), writer)).type).toBe(MessageType.SUCCESS_RESPONSE);
    const read = await prepare(writer, 'SELECT key, value FROM "main".ducklake_tag WHERE object_id = 0');
    if (read.type !== MessageType.PREPARE_RESPONSE) throw new Error(JSON.stringify(read));
    const values = read.results.flatMap((c) => c.columns[1] ?? []);
    expect(values).toContain("w");
    expect(values).not.toContain("r");
    const other = { ...tag("x"), table: "ducklake_data_file" } as Message;
    expect(errorText(await post(other, writer))).toMatch(/this server derives that table/);
  });

  it("refuses a request with no statement and an unsupported message type", async () => {
    const id = await connect(`sales:${TOKENS.readSales}`);
    expect(errorText(await prepare(id, " ; "))).toMatch(/No statement/);
    expect(errorText(await post({ type: MessageType.SUCCESS_RESPONSE }, id))).toMatch(
      /Unsupported message type/,
    );
  });
});

describe("a lake that does not exist yet", () => {
  const EXISTS_PROBE =
    "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'ducklake_metadata' AND table_schema = 'main'";
  const initBatch = (): string => {
    const scenario = Object.values(writes.scenarios)[0] as { steps: { writes: string[] }[] };
    const batch = scenario.steps[0]?.writes[0];
    if (!batch?.includes("CREATE TABLE")) throw new Error("no captured initialization batch");
    return batch;
  };

  it("an admin's ATTACH sees an empty database, then DuckLake's initialization batch creates the lake", async () => {
    expect((await call("/v1/lakes/qw-fresh")).status).toBe(404);
    const id = await connect(`qw-fresh:${TOKENS.adminAll}`);
    const probe = await prepare(id, EXISTS_PROBE);
    expect(probe.type === MessageType.PREPARE_RESPONSE && probe.results[0]?.columns[0]).toEqual([0n]);
    const init = await prepare(id, initBatch());
    expect(init.type, init.type === MessageType.ERROR_RESPONSE ? init.message : "").toBe(
      MessageType.PREPARE_RESPONSE,
    );
    expect((await call("/v1/lakes/qw-fresh")).status).toBe(200);
    const again = await prepare(id, EXISTS_PROBE);
    expect(again.type === MessageType.PREPARE_RESPONSE && again.results[0]?.columns[0]).toEqual([1n]);
  });

  it("any other token is refused at CONNECTION with what to do", async () => {
    const tokens = JSON.stringify({ "t-ghost-writer-0123456789": { lakes: ["ghost"], scope: "write" } });
    const body = encodeEnvelope({
      header: { type: MessageType.CONNECTION_REQUEST, connectionId: "", clientQueryId: 1n },
      message: connectRequest("ghost:t-ghost-writer-0123456789"),
    });
    const out = await handleQuack({
      env: { ...env, AUTH_TOKENS: tokens },
      body,
      requestId: "t",
      now: Date.now(),
      results: new ResultStore(),
    });
    expect(errorText(decodeEnvelope(out.body).message)).toMatch(
      /lake 'ghost' does not exist: create it with PUT \/v1\/lakes\/ghost, or ATTACH it with an admin token/,
    );
  });
});

describe("FETCH paging", () => {
  it("sends 12 chunks per response, holds the rest, and answers FETCH page by page", async () => {
    const id = await connect(`sales:${TOKENS.readSales}`);
    const rows: SqlValue[][] = Array.from({ length: 50_000 }, (_, i) => [BigInt(i)]);
    const result: SqlResult = { columns: [{ name: "i", type: { id: "BIGINT" } }], rows };
    const store = new ResultStore();
    const first = decodeEnvelope(
      prepareResponse(store, { connectionId: id, owner: "sales.r" }, result, 0),
    ).message;
    if (first.type !== MessageType.PREPARE_RESPONSE) throw new Error("not a PREPARE_RESPONSE");
    expect(first.needsMoreFetch).toBe(true);
    expect(first.results.length).toBe(FETCH_CHUNKS);
    const fetchOnce = async (): Promise<Message> => {
      const body = encodeEnvelope({
        header: { type: MessageType.FETCH_REQUEST, connectionId: id, clientQueryId: 1n },
        message: { type: MessageType.FETCH_REQUEST, uuid: first.resultUuid },
      });
      return decodeEnvelope((await handleQuack({ env, body, requestId: "t", now: 1, results: store })).body)
        .message;
    };
    const pages: Array<number[] | string> = [];
    for (let i = 0; i < 4; i++) {
      const m = await fetchOnce();
      pages.push(
        m.type === MessageType.FETCH_RESPONSE
          ? [Number(m.batchIndex ?? -1n), ...m.results.map((c) => c.rows)]
          : errorText(m),
      );
    }
    expect(pages).toEqual([[1, ...Array(12).fill(2048)], [2, 848], [-1], [-1]]);
    const all = [first, ...[]].flatMap((m) => (m.type === MessageType.PREPARE_RESPONSE ? m.results : []));
    expect(all[0]?.columns[0]?.[0]).toBe(0n);
    store.close(id);
    expect(errorText(await fetchOnce())).toMatch(/^Result has been closed/);
  });

  it("bounds what one lake and token hold, refusing the new result rather than evicting another's", () => {
    const store = new ResultStore();
    const page = [new Uint8Array(10)];
    for (let i = 0; i < MAX_HELD_RESULTS_PER_OWNER; i++)
      store.hold({ connectionId: `c${i}`, owner: "a" }, BigInt(i), page, 0);
    expect(() => store.hold({ connectionId: "c-extra", owner: "a" }, 99n, page, 0)).toThrow(
      /already holds 64 paged results/,
    );
    expect(store.take("c0", 0n, 0)).not.toBe("lost");
    expect(store.take("c0", 0n, 0)).toBe("done");
    // c0 was fetched to its end: its slot is free again.
    store.hold({ connectionId: "c-extra", owner: "a" }, 99n, page, 0);
    expect(store.take("c63", 63n, 11 * 60 * 1000)).toBe("lost");
    expect(store.heldBytes).toBe(0);
  });
});

describe("GET /v1/lakes/{lake}/quack", () => {
  it("answers what to paste into DuckDB for the caller's host", async () => {
    const res = await call("/v1/lakes/sales/quack", { token: TOKENS.readSales });
    expect(res.status).toBe(200);
    // The lake exists with its own prefix as data path: the data secret routes httpfs to this Worker's /s3.
    const dataSecret =
      "CREATE SECRET sales_data (TYPE r2, KEY_ID 'sales', SECRET '<token>', ENDPOINT 'edge.test/s3', URL_STYLE 'path', USE_SSL true, REGION 'auto', EXTRA_HTTP_HEADERS MAP {'Expect': ''}, SCOPE 'r2://ducklake-edge/lakes/sales/');";
    const secret =
      "CREATE SECRET sales_quack (TYPE quack, TOKEN 'sales:<token>', SCOPE 'quack:edge.test:443/sales');";
    const attach = "ATTACH 'ducklake:quack:edge.test:443/sales' AS sales;";
    expect(await res.json()).toEqual({
      dataSecret,
      secret,
      attach,
      statements: ["LOAD ducklake; LOAD quack; LOAD httpfs;", dataSecret, secret, attach],
      note: null,
    });
    expect(quackRecipe("my-lake", "127.0.0.1:8787", false).attach).toBe(
      "ATTACH 'ducklake:quack:127.0.0.1:8787/my-lake' AS my_lake;",
    );
    expect((await call("/v1/lakes/sales/quack", { token: null })).status).toBe(401);
    // A lake that does not exist yet: the ATTACH creates it (admin) with its own prefix as the data path.
    const fresh = (await (await call("/v1/lakes/not-yet/quack", { token: TOKENS.adminAll })).json()) as {
      attach: string;
    };
    expect(fresh.attach).toBe(
      "ATTACH 'ducklake:quack:edge.test:443/not-yet' AS not_yet (DATA_PATH 'r2://ducklake-edge/lakes/not-yet/data/');",
    );
  });

  it("keeps the caller's port and says when DuckDB's SSL default is wrong for the scheme (decision 0204)", () => {
    // A non-local host on an explicit port keeps it (TLS on 8443 is still TLS).
    expect(quackRecipe("shop", "edge.test:8443", true).attach).toBe(
      "ATTACH 'ducklake:quack:edge.test:8443/shop' AS shop;",
    );
    // DuckDB uses plain HTTP only for localhost, 127.0.0.1 and ::1: over https they must force SSL ...
    expect(quackRecipe("shop", "localhost:9443", true).attach).toBe(
      "ATTACH 'ducklake:quack:localhost:9443/shop' AS shop (META_DISABLE_SSL false);",
    );
    expect(quackRecipe("shop", "127.0.0.1", true).attach).toBe(
      "ATTACH 'ducklake:quack:127.0.0.1:443/shop' AS shop (META_DISABLE_SSL false);",
    );
    // ... and any other host reached over plain http must turn SSL off.
    expect(quackRecipe("shop", "10.0.0.5:8787", false).attach).toBe(
      "ATTACH 'ducklake:quack:10.0.0.5:8787/shop' AS shop (META_DISABLE_SSL true);",
    );
    expect(quackRecipe("shop", "localhost", false).secret).toBe(
      "CREATE SECRET shop_quack (TYPE quack, TOKEN 'shop:<token>', SCOPE 'quack:localhost:80/shop');",
    );
  });
});

describe("the CLI's quack-url without the route", () => {
  it("builds the route's recipe from its URL: the port kept, SSL said when DuckDB's default is wrong", () => {
    const lines = computedQuackLines({ url: "http://edge.test:8787", token: "t'1" }, "my-lake");
    expect(lines.slice(2)).toEqual([
      "CREATE SECRET my_lake_quack (TYPE quack, TOKEN 'my-lake:t''1', SCOPE 'quack:edge.test:8787/my-lake');",
      "ATTACH 'ducklake:quack:edge.test:8787/my-lake' AS my_lake (META_DISABLE_SSL true);",
    ]);
    expect(
      computedQuackLines({ url: "https://ducklake-edge.example.workers.dev", token: undefined }, "shop")[3],
    ).toBe("ATTACH 'ducklake:quack:ducklake-edge.example.workers.dev:443/shop' AS shop;");
  });
});
