/**
 * The S3 endpoint's auth matrix (docs/decisions/0500, 0501): tokens × lakes × operations × key spellings, in
 * workerd with real miniflare R2. Access is granted exactly when the token covers the key id's lake, the
 * key lies under that lake's `lakes/<lake>/data/`, and the token's scope covers the operation; every other
 * request is a 4xx S3 error (never a 5xx), and nothing outside a token's lake and scope is read or changed.
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_CLOCK_SKEW_MS } from "../../../worker/s3/sigv4.ts";
import { call, TOKENS } from "../../support/http.ts";
import { assertProperty } from "../../support/property.ts";
import { BUCKET, s3 } from "./signed.ts";

const SECRET_BYTES = new TextEncoder().encode("other lake's bytes");
/** Lake s3a's own objects: what its tokens may read. Only s3b holds SECRET_BYTES. */
const OWN_BYTES = new TextEncoder().encode("s3a's own bytes");
const UNKNOWN = "t-nobody-0123456789abc";

/** Every object outside the lakes' data prefixes, with its etag: none may change. */
/** A lake's data objects with their etags. */
async function lakeObjects(lake: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const o of (await env.BUCKET.list({ prefix: `lakes/${lake}/data/` })).objects) out.set(o.key, o.etag);
  return out;
}

/**
 * The lakes' own catalog stores, which only their writers write: a DELETE is fenced by the writer in the
 * lake's catalog (decision docs/decisions/0630-quack-orphan-listing-grace.md), never by the endpoint itself.
 */
const CATALOG_STORE = /^lakes\/(s3a|s3b)\/(wal|manifest)\//;

async function outsideSnapshot(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let cursor: string | undefined;
  do {
    const page = await env.BUCKET.list({ ...(cursor ? { cursor } : {}) });
    for (const o of page.objects)
      if (!/^lakes\/(s3a|s3b)\/data\//.test(o.key) && !CATALOG_STORE.test(o.key)) out.set(o.key, o.etag);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return out;
}

const TOKEN_CASES = [
  { name: "admin (every lake)", token: TOKENS.adminAll, lakes: ["s3a", "s3b"], write: true },
  { name: "write s3a", token: "t-write-s3a-0123456789", lakes: ["s3a"], write: true },
  { name: "read s3a", token: "t-read-s3a-0123456789", lakes: ["s3a"], write: false },
  { name: "unknown", token: UNKNOWN, lakes: [] as string[], write: false },
];

type Op = {
  name: string;
  write: boolean;
  run: (keyId: string, token: string, key: string) => Promise<Response>;
};

const OPS: Op[] = [
  {
    name: "HEAD",
    write: false,
    run: (k, t, key) => s3("HEAD", `/s3/${BUCKET}/${key}`, { keyId: k, secret: t }),
  },
  {
    name: "GET",
    write: false,
    run: (k, t, key) => s3("GET", `/s3/${BUCKET}/${key}`, { keyId: k, secret: t }),
  },
  {
    name: "LIST",
    write: false,
    run: (k, t, key) =>
      s3("GET", `/s3/${BUCKET}/?list-type=2&prefix=${encodeURIComponent(key)}`, { keyId: k, secret: t }),
  },
  {
    name: "PUT",
    write: true,
    run: (k, t, key) =>
      s3("PUT", `/s3/${BUCKET}/${key}.new-${crypto.randomUUID()}`, {
        keyId: k,
        secret: t,
        body: new Uint8Array([7, 7, 7]),
      }),
  },
  {
    name: "CreateMultipart",
    write: true,
    run: (k, t, key) =>
      s3("POST", `/s3/${BUCKET}/${key}.mp-${crypto.randomUUID()}?uploads=`, { keyId: k, secret: t }),
  },
  {
    name: "DELETE",
    write: true,
    run: (k, t, key) => s3("DELETE", `/s3/${BUCKET}/${key}`, { keyId: k, secret: t }),
  },
];

describe("S3 endpoint auth matrix", () => {
  beforeAll(async () => {
    for (const lake of ["s3a", "s3b"])
      expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
    for (const lake of ["s3a", "s3b"]) {
      const bytes = lake === "s3a" ? OWN_BYTES : SECRET_BYTES;
      await env.BUCKET.put(`lakes/${lake}/data/main/t/f.parquet`, bytes);
      await env.BUCKET.put(`lakes/${lake}/data/keep.parquet`, bytes);
    }
  });

  it("grants exactly the token's lakes and scope, inside the lake's data prefix; 0 5xx", async () => {
    const before = await outsideSnapshot();
    let granted = 0;
    let refused = 0;
    for (const tc of TOKEN_CASES) {
      for (const keyLake of ["s3a", "s3b"]) {
        for (const pathLake of ["s3a", "s3b"]) {
          for (const op of OPS) {
            // DELETE of the lake's own data file only on a key made for it, so later cases still find theirs.
            const key =
              op.name === "DELETE"
                ? `lakes/${pathLake}/data/del-${crypto.randomUUID()}`
                : `lakes/${pathLake}/data/main/t/f.parquet`;
            if (op.name === "DELETE")
              await env.BUCKET.put(`lakes/${pathLake}/data/${key.split("/").pop()}`, SECRET_BYTES);
            const res = await op.run(keyLake, tc.token, op.name === "LIST" ? `lakes/${pathLake}/data/` : key);
            const body = await res.text();
            const ok = tc.lakes.includes(keyLake) && keyLake === pathLake && (!op.write || tc.write);
            expect(res.status, `${tc.name} key id ${keyLake} ${op.name} ${key}: ${body}`).toBeLessThan(500);
            if (ok) {
              expect(res.status, `${tc.name} ${op.name} ${key}: ${body}`).toBeLessThan(300);
              granted++;
            } else {
              expect(
                res.status,
                `${tc.name} key id ${keyLake} ${op.name} ${key}: ${body}`,
              ).toBeGreaterThanOrEqual(400);
              expect(body).not.toContain("other lake's bytes");
              if (op.name === "LIST") expect(body).not.toContain("f.parquet");
              refused++;
            }
          }
        }
      }
    }
    expect(granted).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(granted);
    // Nothing outside the lakes' data prefixes was written or deleted.
    expect(await outsideSnapshot()).toEqual(before);
  });

  const ENCODED_OWN = new Set(["lakes%2Fs3a%2Fdata%2Fkeep.parquet"]);

  it("refuses every spelling of a key outside the lake's data prefix (dot segments, encodings, backslashes, slashes)", async () => {
    const spellings = [
      "lakes/s3a/data/../../s3b/data/keep.parquet",
      "lakes/s3a/data/%2e%2e/%2e%2e/s3b/data/keep.parquet",
      "lakes/s3a/data/.%2E/.%2e/s3b/data/keep.parquet",
      "lakes/s3a/data/%252e%252e/%252e%252e/s3b/data/keep.parquet",
      "lakes/s3a/data/..%5C..%5Cs3b%5Cdata%5Ckeep.parquet",
      "lakes/s3a/data/..\\..\\s3b\\data\\keep.parquet",
      "lakes/s3a/data//keep.parquet",
      "/lakes/s3a/data/keep.parquet",
      "lakes%2Fs3a%2Fdata%2Fkeep.parquet",
      "lakes/s3a/data%2F..%2F..%2Fs3b%2Fdata%2Fkeep.parquet",
      "lakes/s3a/data/%2e%2e%2f%2e%2e%2fs3b%2fdata%2fkeep.parquet",
      "lakes/s3a/wal/00000000000000000001.wal",
      "lakes/s3a/data",
      "lakes/s3b/data/keep.parquet",
      "lakes/s3a/data/./keep.parquet",
      "lakes/s3a/data/a%00b",
    ];
    const before = await outsideSnapshot();
    const s3bBefore = await lakeObjects("s3b");
    for (const key of spellings) {
      for (const method of ["GET", "HEAD", "PUT", "DELETE"]) {
        const res = await s3(method, `/s3/${BUCKET}/${key}`, {
          keyId: "s3a",
          secret: TOKENS.adminAll,
          ...(method === "PUT" ? { body: new Uint8Array([1]) } : {}),
        });
        const text = await res.text();
        expect(res.status, `${method} ${key}: ${text}`).toBeLessThan(500);
        expect(text).not.toContain("other lake's bytes");
        // `%2F` is `/` in S3 (the key is lake s3a's own): the only spellings that may be served.
        if (res.status < 400) expect(ENCODED_OWN.has(key), `${method} ${key} served: ${text}`).toBe(true);
      }
    }
    expect(await lakeObjects("s3b")).toEqual(s3bBefore);
    // Every one of the other lake's objects is intact.
    expect(
      new Uint8Array(await (await env.BUCKET.get("lakes/s3b/data/keep.parquet"))!.arrayBuffer()),
    ).toEqual(SECRET_BYTES);
    expect(await outsideSnapshot()).toEqual(before);
  });

  it("no arbitrary key text reaches outside the lake, and none is a 5xx (property)", async () => {
    const s3bBefore = await lakeObjects("s3b");
    const before = await outsideSnapshot();
    const segment = fc.oneof(
      fc.constantFrom(
        "..",
        ".",
        "%2e%2e",
        "%2E.",
        "%252e%252e",
        "s3b",
        "data",
        "lakes",
        "%5C",
        "\\",
        "",
        "%2F",
        "x.parquet",
        "%00",
      ),
      fc.stringMatching(/^[A-Za-z0-9._%\\-]{1,8}$/),
    );
    await assertProperty(
      fc.asyncProperty(
        fc.array(segment, { minLength: 1, maxLength: 6 }),
        fc.constantFrom("GET", "HEAD", "PUT"),
        async (segs, method) => {
          const key = `lakes/s3a/data/${segs.join("/")}`;
          const res = await s3(method, `/s3/${BUCKET}/${key}`, {
            keyId: "s3a",
            secret: "t-write-s3a-0123456789",
            ...(method === "PUT" ? { body: new Uint8Array([1]) } : {}),
          });
          const text = await res.text();
          expect(res.status, `${method} ${key}: ${text}`).toBeLessThan(500);
          expect(text).not.toContain("other lake's bytes");
        },
      ),
      { numRuns: 60 },
    );
    expect(await lakeObjects("s3b")).toEqual(s3bBefore);
    expect(await outsideSnapshot()).toEqual(before);
  });

  it("refuses wrong, expired and replayed signatures", async () => {
    const admin = { keyId: "s3a", secret: TOKENS.adminAll };
    const key = `/s3/${BUCKET}/lakes/s3a/data/main/t/f.parquet`;
    const good = await s3("GET", key, { keyId: "s3a", secret: "t-read-s3a-0123456789" });
    expect(good.status).toBe(200);
    expect(new Uint8Array(await good.arrayBuffer())).toEqual(OWN_BYTES);
    const codeOf = async (r: Response): Promise<string> =>
      /<Code>(\w+)<\/Code>/.exec(await r.text())?.[1] ?? `status ${r.status}`;
    // A wrong secret, a token of another lake signing as this one, an unknown key id.
    expect(await codeOf(await s3("GET", key, { keyId: "s3a", secret: "t-read-s3a-0123456789x" }))).toBe(
      "SignatureDoesNotMatch",
    );
    expect(await codeOf(await s3("GET", key, { keyId: "s3a", secret: TOKENS.writeSales }))).toBe(
      "SignatureDoesNotMatch",
    );
    // A key id naming another lake than the key's: refused by scope; a lake that does not exist: NoSuchBucket.
    expect(await codeOf(await s3("GET", key, { keyId: "nolake", secret: TOKENS.adminAll }))).toBe(
      "AccessDenied",
    );
    const absent = `/s3/${BUCKET}/lakes/nolake/data/x.parquet`;
    expect(await codeOf(await s3("GET", absent, { keyId: "nolake", secret: TOKENS.adminAll }))).toBe(
      "NoSuchBucket",
    );
    expect(await codeOf(await s3("GET", key, { keyId: "Not_A_Lake", secret: TOKENS.adminAll }))).toBe(
      "InvalidAccessKeyId",
    );
    // Expired (past the skew) and from the future.
    const old = new Date(Date.now() - MAX_CLOCK_SKEW_MS - 60_000);
    const future = new Date(Date.now() + MAX_CLOCK_SKEW_MS + 60_000);
    expect(await codeOf(await s3("GET", key, { keyId: "s3a", secret: TOKENS.adminAll, date: old }))).toBe(
      "RequestTimeTooSkewed",
    );
    expect(await codeOf(await s3("GET", key, { keyId: "s3a", secret: TOKENS.adminAll, date: future }))).toBe(
      "RequestTimeTooSkewed",
    );
    // A signature replayed onto another key, another method, another lake.
    const other = `/s3/${BUCKET}/lakes/s3a/data/keep.parquet`;
    expect(
      await codeOf(await s3("GET", key, { keyId: "s3a", secret: TOKENS.adminAll, sendPath: other })),
    ).toBe("SignatureDoesNotMatch");
    expect(
      await codeOf(await s3("GET", key, { keyId: "s3a", secret: TOKENS.adminAll, sendMethod: "DELETE" })),
    ).toBe("SignatureDoesNotMatch");
    expect(
      await codeOf(
        await s3("GET", key, {
          keyId: "s3a",
          secret: TOKENS.adminAll,
          sendPath: `/s3/${BUCKET}/lakes/s3b/data/keep.parquet`,
        }),
      ),
    ).toBe("SignatureDoesNotMatch");
    // A signed DeleteObjects replayed with another body (other keys of the same lake): refused, nothing
    // deleted (decision 0751).
    expect(
      (await s3("PUT", `/s3/${BUCKET}/lakes/s3a/data/victim.bin`, { ...admin, body: OWN_BYTES })).status,
    ).toBe(200);
    const deleteXml = (k: string): Uint8Array =>
      new TextEncoder().encode(`<Delete><Object><Key>${k}</Key></Object></Delete>`);
    const swapped = await s3("POST", `/s3/${BUCKET}/?delete=`, {
      ...admin,
      body: deleteXml("lakes/s3a/data/absent.bin"),
      sendBody: deleteXml("lakes/s3a/data/victim.bin"),
    });
    expect(await codeOf(swapped)).toBe("XAmzContentSHA256Mismatch");
    expect(await env.BUCKET.head("lakes/s3a/data/victim.bin")).not.toBeNull();
    // No region in the credential (the library would substitute one): refused by name.
    const noRegion = (h: string): string => h.replace("/auto/s3/", "//s3/");
    expect(await codeOf(await s3("GET", key, { ...admin, mangleAuth: noRegion }))).toBe(
      "AuthorizationHeaderMalformed",
    );
    // The signed-headers list must cover host, x-amz-date and x-amz-content-sha256.
    const fewer = (h: string): string => h.replace("host;x-amz-content-sha256;x-amz-date", "host;x-amz-date");
    expect(await codeOf(await s3("GET", key, { ...admin, mangleAuth: fewer }))).toBe("AccessDenied");
    // Unsigned.
    const unsigned = await (await import("../../../worker/s3/serve.ts")).serveS3(
      new Request(`http://edge.test${key}`),
      env,
    );
    expect(await codeOf(unsigned)).toBe("AccessDenied");
    // A body that does not match its signed hash is refused and not kept.
    const put = await s3("PUT", `/s3/${BUCKET}/lakes/s3a/data/tampered.parquet`, {
      keyId: "s3a",
      secret: TOKENS.adminAll,
      body: new Uint8Array([1, 2, 3]),
      claimedSha256: "0".repeat(64),
    });
    expect(await codeOf(put)).toBe("XAmzContentSHA256Mismatch");
    expect(await env.BUCKET.head("lakes/s3a/data/tampered.parquet")).toBeNull();
    // Objects are immutable: a second PUT of the same key is refused.
    const once = { keyId: "s3a", secret: TOKENS.adminAll, body: new Uint8Array([5]) };
    expect((await s3("PUT", `/s3/${BUCKET}/lakes/s3a/data/once.parquet`, once)).status).toBe(200);
    expect(await codeOf(await s3("PUT", `/s3/${BUCKET}/lakes/s3a/data/once.parquet`, once))).toBe(
      "PreconditionFailed",
    );
  });

  it("serves ranged GETs, listings and multipart uploads as httpfs uses them", async () => {
    const t = { keyId: "s3a", secret: "t-write-s3a-0123456789" };
    const bytes = new Uint8Array(1000).map((_, i) => i % 251);
    expect((await s3("PUT", `/s3/${BUCKET}/lakes/s3a/data/r.bin`, { ...t, body: bytes })).status).toBe(200);
    const ranged = await s3("GET", `/s3/${BUCKET}/lakes/s3a/data/r.bin`, {
      ...t,
      headers: { range: "bytes=10-19" },
    });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get("content-range")).toBe("bytes 10-19/1000");
    expect(new Uint8Array(await ranged.arrayBuffer())).toEqual(bytes.slice(10, 20));
    const tail = await s3("GET", `/s3/${BUCKET}/lakes/s3a/data/r.bin`, {
      ...t,
      headers: { range: "bytes=990-2000" },
    });
    expect(tail.status).toBe(206);
    expect(tail.headers.get("content-range")).toBe("bytes 990-999/1000");
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(bytes.slice(990));
    const open = await s3("GET", `/s3/${BUCKET}/lakes/s3a/data/r.bin`, {
      ...t,
      headers: { range: "bytes=995-" },
    });
    expect(new Uint8Array(await open.arrayBuffer())).toEqual(bytes.slice(995));
    const suffix = await s3("GET", `/s3/${BUCKET}/lakes/s3a/data/r.bin`, {
      ...t,
      headers: { range: "bytes=-3" },
    });
    expect(suffix.headers.get("content-range")).toBe("bytes 997-999/1000");
    expect(new Uint8Array(await suffix.arrayBuffer())).toEqual(bytes.slice(997));
    const missing = await s3("GET", `/s3/${BUCKET}/lakes/s3a/data/none.bin`, {
      ...t,
      headers: { range: "bytes=0-9" },
    });
    expect(missing.status).toBe(404);
    const beyond = await s3("GET", `/s3/${BUCKET}/lakes/s3a/data/r.bin`, {
      ...t,
      headers: { range: "bytes=5000-5001" },
    });
    expect(beyond.status).toBe(416);
    const head = await s3("HEAD", `/s3/${BUCKET}/lakes/s3a/data/r.bin`, t);
    expect(head.headers.get("content-length")).toBe("1000");
    const list = await (
      await s3("GET", `/s3/${BUCKET}/?encoding-type=url&list-type=2&prefix=lakes%2Fs3a%2Fdata%2F`, t)
    ).text();
    expect(list).toContain("<Key>lakes/s3a/data/r.bin</Key>");
    expect(list).not.toContain("<Key>lakes/s3b");
    // A shorter prefix is narrowed to the lake's data prefix.
    const wide = await (await s3("GET", `/s3/${BUCKET}/?list-type=2&prefix=lakes%2F`, t)).text();
    expect(wide).toContain("<Prefix>lakes/s3a/data/</Prefix>");
    expect(wide).not.toContain("<Key>lakes/s3b");
    expect(wide).not.toContain("/wal/");
    // Multipart: create, two parts (R2 wants ≥ 5 MiB for every part but the last), complete.
    const create = await (await s3("POST", `/s3/${BUCKET}/lakes/s3a/data/mp.bin?uploads=`, t)).text();
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(create)?.[1] as string;
    expect(uploadId).toBeTruthy();
    const part1 = new Uint8Array(5 * 1024 * 1024).fill(1);
    const part2 = new Uint8Array(10).fill(2);
    const q = (n: number): string => `?partNumber=${n}&uploadId=${encodeURIComponent(uploadId)}`;
    const e1 = (
      await s3("PUT", `/s3/${BUCKET}/lakes/s3a/data/mp.bin${q(1)}`, { ...t, body: part1 })
    ).headers.get("etag");
    // A part is hashed in the Worker (R2's uploadPart takes no checksum): a tampered one gets no ETag.
    const tampered = await s3("PUT", `/s3/${BUCKET}/lakes/s3a/data/mp.bin${q(2)}`, {
      ...t,
      body: part2,
      claimedSha256: "0".repeat(64),
    });
    expect(await tampered.text()).toContain("<Code>XAmzContentSHA256Mismatch</Code>");
    expect(tampered.headers.get("etag")).toBeNull();
    const e2 = (
      await s3("PUT", `/s3/${BUCKET}/lakes/s3a/data/mp.bin${q(2)}`, { ...t, body: part2 })
    ).headers.get("etag");
    const xml = `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${e1}</ETag></Part><Part><PartNumber>2</PartNumber><ETag>${e2}</ETag></Part></CompleteMultipartUpload>`;
    const done = await s3(
      "POST",
      `/s3/${BUCKET}/lakes/s3a/data/mp.bin?uploadId=${encodeURIComponent(uploadId)}`,
      {
        ...t,
        body: new TextEncoder().encode(xml),
      },
    );
    expect(done.status, await done.clone().text()).toBe(200);
    expect((await env.BUCKET.head("lakes/s3a/data/mp.bin"))?.size).toBe(part1.length + part2.length);
    // A read token may not upload parts; an unknown upload id is NoSuchUpload, not a 5xx.
    const readOnly = await s3("PUT", `/s3/${BUCKET}/lakes/s3a/data/mp2.bin${q(1)}`, {
      keyId: "s3a",
      secret: "t-read-s3a-0123456789",
      body: part2,
    });
    expect(readOnly.status).toBe(403);
    const bogus = await s3("PUT", `/s3/${BUCKET}/lakes/s3a/data/mp3.bin?partNumber=1&uploadId=bogus`, {
      ...t,
      body: part2,
    });
    expect(bogus.status).toBeLessThan(500);
    expect(bogus.status).toBeGreaterThanOrEqual(400);
    // DeleteObjects: the lake's keys go, another lake's are refused per key.
    const del = `<Delete><Object><Key>lakes/s3a/data/r.bin</Key></Object><Object><Key>lakes/s3b/data/keep.parquet</Key></Object></Delete>`;
    const delRes = await (
      await s3("POST", `/s3/${BUCKET}/?delete=`, { ...t, body: new TextEncoder().encode(del) })
    ).text();
    expect(delRes).toContain("<Deleted><Key>lakes/s3a/data/r.bin</Key></Deleted>");
    expect(delRes).toContain("<Error><Key>lakes/s3b/data/keep.parquet</Key><Code>AccessDenied</Code>");
    expect(await env.BUCKET.head("lakes/s3b/data/keep.parquet")).not.toBeNull();
  });
});
