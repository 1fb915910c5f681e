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

/**
 * The secret + ATTACH for a lake. The lake is chosen by the token string `<lake>:<token>`; the `/<lake>`
 * after the port never reaches the server (DuckDB 1.5.5 ignores it on the wire) but DuckDB matches secret
 * scopes on it, so one host can carry one secret per lake (decision record 0202).
 */
export function quackRecipe(
  lake: string,
  hostHeader: string,
  secure: boolean,
): { secret: string; attach: string } {
  const { target: base, disableSsl } = quackTarget(hostHeader, secure);
  const target = `${base}/${lake}`;
  const ident = lake.replace(/-/g, "_");
  const options = disableSsl === undefined ? "" : ` (META_DISABLE_SSL ${disableSsl})`;
  return {
    secret: `CREATE SECRET ${ident}_quack (TYPE quack, TOKEN '${lake}:<token>', SCOPE '${target}');`,
    attach: `ATTACH 'ducklake:${target}' AS ${ident}${options};`,
  };
}
