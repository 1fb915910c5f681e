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
    `ATTACH 'ducklake:${endpoint}' AS ${lake.replaceAll("-", "_")} (META_TOKEN '${token.replaceAll("'", "''")}');`,
  ];
}

interface QuackRoute {
  attach?: unknown;
  lines?: unknown;
}

export async function quackLines(config: CliConfig, lake: string): Promise<string[]> {
  const headers: Record<string, string> = config.token ? { authorization: `Bearer ${config.token}` } : {};
  const res = await fetch(`${config.url}/v1/lakes/${lake}/quack`, { headers }).catch(() => null);
  if (res?.ok) {
    const body = (await res.json().catch(() => null)) as QuackRoute | null;
    const lines = body?.lines ?? body?.attach;
    if (Array.isArray(lines) && lines.every((l) => typeof l === "string")) return lines as string[];
    if (typeof lines === "string") return [lines];
  }
  return computedQuackLines(config, lake);
}
