/** Structured logs: one JSON object per line, so Workers Logs and `wrangler tail` can filter on fields. */
export type Level = "debug" | "info" | "warn" | "error";

const RANK: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function log(level: Level, fields: Record<string, unknown>, threshold: string | undefined): void {
  const min = RANK[(threshold as Level) ?? "info"] ?? RANK.info;
  if (RANK[level] < min) return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}
