/**
 * `quack-url`: the DuckDB lines that attach a lake over Quack. A deployment that serves
 * `GET /v1/lakes/{lake}/quack` (the Quack endpoint's own description) is asked first; otherwise the lines
 * follow stock DuckLake's Quack client: `ducklake:quack:<host>:<port>` (a Worker on https is port 443)
 * and the token passed per ATTACH as META_TOKEN, which is what tells lakes apart.
 */
import type { CliConfig } from "./config.ts";

export function computedQuackLines(config: CliConfig, lake: string): string[] {
  const url = new URL(config.url);
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const endpoint = `quack:${url.hostname}:${port}`;
  const token = config.token ?? "<token>";
  return [
    "INSTALL httpfs; INSTALL quack; INSTALL ducklake;",
    "LOAD httpfs; LOAD quack; LOAD ducklake;",
    // The lake is chosen by the token string `<lake>:<token>` (docs/decisions/0202-quack-sessions-and-lake-selection.md).
    `ATTACH 'ducklake:${endpoint}' AS ${lake.replaceAll("-", "_")} (META_TOKEN '${`${lake}:${token}`.replaceAll("'", "''")}');`,
  ];
}

interface QuackRoute {
  secret?: unknown;
  attach?: unknown;
}

export async function quackLines(config: CliConfig, lake: string): Promise<string[]> {
  const headers: Record<string, string> = config.token ? { authorization: `Bearer ${config.token}` } : {};
  const res = await fetch(`${config.url}/v1/lakes/${lake}/quack`, { headers }).catch(() => null);
  if (res?.ok) {
    const body = (await res.json().catch(() => null)) as QuackRoute | null;
    // The route answers `{secret, attach}` with `<token>` as a placeholder; fill in the caller's token.
    const fill = (l: string): string => (config.token ? l.replaceAll("<token>", config.token) : l);
    const lines = [body?.secret, body?.attach].filter((l): l is string => typeof l === "string");
    if (lines.length > 0) return lines.map(fill);
  }
  return computedQuackLines(config, lake);
}
