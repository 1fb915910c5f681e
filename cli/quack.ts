/**
 * `quack-url`: the DuckDB lines that attach a lake over Quack. A deployment that serves
 * `GET /v1/lakes/{lake}/quack` (the Quack endpoint's own description) is asked first; otherwise the CLI
 * builds the same secret and ATTACH from the URL it was given, with the route's own rule for DuckDB's SSL
 * default and the port (decision record docs/decisions/0204-quack-over-tls.md).
 */
import { quackRecipe } from "../worker/quack/recipe.ts";
import type { CliConfig } from "./config.ts";

export function computedQuackLines(config: CliConfig, lake: string): string[] {
  const url = new URL(config.url);
  // The route's own recipe, for the host and scheme the CLI was pointed at (worker/quack/recipe.ts).
  const { secret, attach } = quackRecipe(lake, url.host, url.protocol === "https:");
  const token = config.token ?? "<token>";
  return [
    "INSTALL httpfs; INSTALL quack; INSTALL ducklake;",
    "LOAD httpfs; LOAD quack; LOAD ducklake;",
    secret.replaceAll("<token>", token.replaceAll("'", "''")),
    attach,
  ];
}

interface QuackRoute {
  secret?: unknown;
  attach?: unknown;
  /** Every statement in order (the data secret first): answered by servers with the S3 endpoint. */
  statements?: unknown;
}

export async function quackLines(config: CliConfig, lake: string): Promise<string[]> {
  const headers: Record<string, string> = config.token ? { authorization: `Bearer ${config.token}` } : {};
  const res = await fetch(`${config.url}/v1/lakes/${lake}/quack`, { headers }).catch(() => null);
  if (res?.ok) {
    const body = (await res.json().catch(() => null)) as QuackRoute | null;
    // The route answers `{secret, attach}` with `<token>` as a placeholder; fill in the caller's token.
    const fill = (l: string): string => (config.token ? l.replaceAll("<token>", config.token) : l);
    const all = Array.isArray(body?.statements) ? body.statements : [body?.secret, body?.attach];
    const lines = all.filter((l): l is string => typeof l === "string");
    if (lines.length > 0) return lines.map(fill);
  }
  return computedQuackLines(config, lake);
}
