/**
 * The DuckDB statements that attach a lake over Quack, for a caller who reached this Worker at `hostHeader`
 * (`GET /v1/lakes/{lake}/quack`, and the CLI's `quack-url` against a server without that route). One home
 * for DuckDB's SSL and port rule (decision record docs/decisions/0204-quack-over-tls.md).
 */
/** The hosts DuckDB's Quack client reaches without SSL unless told otherwise (decision record 0204). */
const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/**
 * Where DuckDB must connect to reach this Worker as the caller did, and whether that needs an SSL override.
 * The port is the Host header's, else the scheme's default (443 for https). DuckDB 1.5.5 uses SSL for
 * every host except localhost, 127.0.0.1 and ::1, whatever the port, so a local host reached over https
 * needs `META_DISABLE_SSL false` and any other host reached over plain http needs `META_DISABLE_SSL true`
 * (decision record 0204).
 */
export function quackTarget(hostHeader: string, secure: boolean): { target: string; disableSsl?: boolean } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(hostHeader.trim());
  const host = m?.[1] ?? "localhost";
  const port = m?.[2] ?? (secure ? "443" : "80");
  const local = LOCAL_HOSTS.has(host.toLowerCase());
  const target = `quack:${host}:${port}`;
  if (local && secure) return { target, disableSsl: false };
  if (!local && !secure) return { target, disableSsl: true };
  return { target };
}

/** Where the lake's files live, as the recipe needs it: its data path and whether the writer owns it. */
export interface RecipeData {
  /** The lake's `data_path`; for a lake that does not exist yet, the one its ATTACH will create it with. */
  dataPath: string;
  /** Null when the data path is the lake's own prefix (`catalog/data-path.ts` `externalDataPathReason`). */
  external: string | null;
  /** The lake does not exist yet: the ATTACH creates it (admin), so it names the data path. */
  absent: boolean;
}

export interface QuackRecipe {
  /** The data secret: DuckDB's httpfs reaches the lake's files through this Worker's S3 endpoint. */
  dataSecret: string | null;
  secret: string;
  attach: string;
  /** Every statement, in order (LOAD, data secret, Quack secret, ATTACH). */
  statements: string[];
  /** Said when DuckDB must reach the files itself (an external data path). */
  note: string | null;
}

/**
 * The data secret's option that sends no `Expect: 100-continue` (curl adds it to bodies over 1 MiB and then
 * waits 1 s for an answer workerd does not give): docs/decisions/0750-s3-expect-continue.md.
 */
export const NO_EXPECT_CONTINUE = "EXTRA_HTTP_HEADERS MAP {'Expect': ''}";

/**
 * The data secret for a lake whose data path is its own prefix: a `TYPE r2` (or `s3`, as the data path's
 * scheme) secret whose ENDPOINT is this Worker's `/s3` (path style), key id the lake, secret the token,
 * scoped to the lake's prefix (decision record docs/decisions/0501-s3-endpoint.md).
 */
export function dataSecret(
  lake: string,
  hostHeader: string,
  secure: boolean,
  dataPath: string,
): string | null {
  const m = /^(r2|s3):\/\/([^/]+)\//.exec(dataPath);
  if (!m) return null;
  const [, scheme, bucket] = m;
  const ident = lake.replace(/-/g, "_");
  // EXTRA_HTTP_HEADERS: an empty `Expect` stops httpfs's curl from waiting for a `100 Continue` that
  // workerd never sends, 1 s before every body over 1 MiB (docs/decisions/0750-s3-expect-continue.md).
  return `CREATE SECRET ${ident}_data (TYPE ${scheme}, KEY_ID '${lake}', SECRET '<token>', ENDPOINT '${hostHeader.trim()}/s3', URL_STYLE 'path', USE_SSL ${secure}, REGION 'auto', ${NO_EXPECT_CONTINUE}, SCOPE '${scheme}://${bucket}/lakes/${lake}/');`;
}

/** The whole recipe: the data secret (when the Worker serves the lake's files), the Quack secret, ATTACH. */
export function lakeRecipe(lake: string, hostHeader: string, secure: boolean, data: RecipeData): QuackRecipe {
  // DuckLake creates a lake only with a DATA_PATH; an existing lake's is in its catalog.
  const { secret, attach } = quackRecipe(lake, hostHeader, secure, data.absent ? data.dataPath : undefined);
  const data_ = data.external === null ? dataSecret(lake, hostHeader, secure, data.dataPath) : null;
  const statements = ["LOAD ducklake; LOAD quack; LOAD httpfs;", ...(data_ ? [data_] : []), secret, attach];
  const note =
    data.external === null
      ? null
      : `${data.external}. Give DuckDB its own access to that path (a local directory, or a secret for that bucket).`;
  return { dataSecret: data_, secret, attach, statements, note };
}

/**
 * The secret + ATTACH for a lake. The lake is chosen by the token string `<lake>:<token>`; the `/<lake>`
 * after the port never reaches the server (DuckDB 1.5.5 ignores it on the wire) but DuckDB matches secret
 * scopes on it, so one host can carry one secret per lake (decision record 0202).
 */
export function quackRecipe(
  lake: string,
  hostHeader: string,
  secure: boolean,
  createWithDataPath?: string,
): { secret: string; attach: string } {
  const { target: base, disableSsl } = quackTarget(hostHeader, secure);
  const target = `${base}/${lake}`;
  const ident = lake.replace(/-/g, "_");
  const opts = [
    ...(createWithDataPath === undefined ? [] : [`DATA_PATH '${createWithDataPath}'`]),
    ...(disableSsl === undefined ? [] : [`META_DISABLE_SSL ${disableSsl}`]),
  ];
  const options = opts.length === 0 ? "" : ` (${opts.join(", ")})`;
  return {
    secret: `CREATE SECRET ${ident}_quack (TYPE quack, TOKEN '${lake}:<token>', SCOPE '${target}');`,
    attach: `ATTACH 'ducklake:${target}' AS ${ident}${options};`,
  };
}
