/**
 * Where the CLI finds the API and its token: flags first, then the environment (DUCKLAKE_EDGE_URL,
 * DUCKLAKE_EDGE_TOKEN), then a JSON config file (`--config`, DUCKLAKE_EDGE_CONFIG, or
 * ~/.config/ducklake-edge/config.json: `{"url": "...", "token": "..."}`).
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { CliError } from "./errors.ts";

export interface CliConfig {
  url: string;
  token: string | undefined;
}

export interface ConfigSources {
  url?: string | undefined;
  token?: string | undefined;
  config?: string | undefined;
}

export const DEFAULT_URL = "http://localhost:8787";

function fileConfig(path: string, explicit: boolean): { url?: unknown; token?: unknown } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    if (explicit) throw new CliError("ConfigNotFound", `config file ${path} cannot be read`);
    return {};
  }
  try {
    return JSON.parse(text) as { url?: unknown; token?: unknown };
  } catch {
    throw new CliError("ConfigInvalid", `config file ${path} is not JSON`);
  }
}

export function resolveConfig(flags: ConfigSources, env: NodeJS.ProcessEnv = process.env): CliConfig {
  const explicit = flags.config ?? env.DUCKLAKE_EDGE_CONFIG;
  const file = fileConfig(explicit ?? join(homedir(), ".config", "ducklake-edge", "config.json"), !!explicit);
  const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined);
  const url = str(flags.url) ?? str(env.DUCKLAKE_EDGE_URL) ?? str(file.url) ?? DEFAULT_URL;
  const token = str(flags.token) ?? str(env.DUCKLAKE_EDGE_TOKEN) ?? str(file.token);
  if (!/^https?:\/\//.test(url)) throw new CliError("ConfigInvalid", `the API URL must be http(s): ${url}`);
  return { url: url.replace(/\/+$/, ""), token };
}
