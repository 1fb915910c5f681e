/**
 * Date, time, timestamp and interval values. Stored as DuckDB's own text for the type (what its CSV
 * writer prints), so rendering is the identity. The accepted spellings are ISO 8601 forms DuckDB reads
 * (docs/decisions/0120-inlined-value-types.md); fractions beyond the type's precision are truncated and
 * TIMESTAMP_MS / TIMESTAMP_S round, exactly as DuckDB's cast does.
 */
import type { StoredValue } from "./errors.ts";
import { refuse } from "./errors.ts";

const US_PER_DAY = 86_400_000_000n;

/** Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z0: number): [number, number, number] {
  const z = z0 + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [era * 400 + yoe + (m <= 2 ? 1 : 0), m, d];
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(m) ? 30 : 31;
}

const pad = (n: number | bigint, w: number): string => n.toString().padStart(w, "0");

const DATE = "(\\d{4})-(\\d{1,2})-(\\d{1,2})";
const TIME = "(\\d{1,2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d+))?)?";
const OFFSET = "(Z|[+-]\\d{2}(?::?\\d{2})?)";
const DATE_RE = new RegExp(`^${DATE}$`);
const TIME_RE = new RegExp(`^${TIME}$`);
const TIMETZ_RE = new RegExp(`^${TIME}([+-]\\d{2}(?::?\\d{2})?)?$`);
const TS_RE = new RegExp(`^${DATE}(?:[ T]${TIME})?$`);
const TSTZ_RE = new RegExp(`^${DATE}(?:[ T]${TIME})?${OFFSET}?$`);

/** Days since the epoch of a checked date, or a refusal. Years 0001–9999 (0120). */
function dateDays(type: string, input: string, path: string, y: string, mo: string, d: string): number {
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month))
    refuse(path, type, input, "no such date");
  return daysFromCivil(year, month, day);
}

/** Nanoseconds into the day of a checked time; `24:00:00` is allowed as DuckDB allows it. */
function timeNanos(type: string, input: string, path: string, parts: (string | undefined)[]): bigint {
  const [h = "0", mi = "0", s = "0", frac = ""] = parts;
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  const fracNs = BigInt(frac.slice(0, 9).padEnd(9, "0"));
  if (minute > 59 || second > 59 || hour > 24) refuse(path, type, input, "no such time of day");
  if (hour === 24 && (minute > 0 || second > 0 || fracNs > 0n))
    refuse(path, type, input, "no such time of day");
  return ((BigInt(hour) * 60n + BigInt(minute)) * 60n + BigInt(second)) * 1_000_000_000n + fracNs;
}

/** Offset in seconds east of UTC; DuckDB allows up to ±15:59. */
function offsetSeconds(type: string, input: string, path: string, text: string | undefined): number {
  if (text === undefined || text === "Z") return 0;
  const sign = text[0] === "-" ? -1 : 1;
  const digits = text.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || "0");
  if (hours > 15 || minutes > 59) refuse(path, type, input, "UTC offset out of range");
  return sign * (hours * 3600 + minutes * 60);
}

function fraction(units: bigint, digits: number): string {
  if (units === 0n) return "";
  return `.${pad(units, digits).replace(/0+$/, "")}`;
}

function timeOfDayText(nanos: bigint, digits: 6 | 9): string {
  const perSecond = 1_000_000_000n;
  const seconds = nanos / perSecond;
  const frac = nanos % perSecond;
  const h = seconds / 3600n;
  const m = (seconds / 60n) % 60n;
  const s = seconds % 60n;
  const units = digits === 6 ? frac / 1000n : frac;
  return `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}${fraction(units, digits)}`;
}

function offsetText(seconds: number): string {
  const sign = seconds < 0 ? "-" : "+";
  const abs = Math.abs(seconds);
  const h = Math.floor(abs / 3600);
  const m = Math.floor((abs % 3600) / 60);
  return `${sign}${pad(h, 2)}${m > 0 ? `:${pad(m, 2)}` : ""}`;
}

function dateText(days: number): string {
  const [y, m, d] = civilFromDays(days);
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
}

export function parseDate(input: StoredValue, path: string): StoredValue {
  if (typeof input !== "string") refuse(path, "date", input, "a date is a string YYYY-MM-DD");
  if (input === "infinity" || input === "-infinity") return input;
  const m = DATE_RE.exec(input);
  if (!m) refuse(path, "date", input, "expected YYYY-MM-DD");
  return dateText(dateDays("date", input, path, m[1] ?? "", m[2] ?? "", m[3] ?? ""));
}

export function parseTime(
  type: "time" | "time_ns" | "timetz",
  input: StoredValue,
  path: string,
): StoredValue {
  if (typeof input !== "string") refuse(path, type, input, "a time is a string HH:MM[:SS[.fraction]]");
  const m = (type === "timetz" ? TIMETZ_RE : TIME_RE).exec(input);
  if (!m) refuse(path, type, input, "expected HH:MM[:SS[.fraction]]");
  const nanos = timeNanos(type, input, path, m.slice(1, 5));
  if (type === "time_ns") return timeOfDayText(nanos, 9);
  const text = timeOfDayText(nanos - (nanos % 1000n), 6);
  return type === "timetz" ? `${text}${offsetText(offsetSeconds(type, input, path, m[5]))}` : text;
}

type TimestampType =
  | "timestamp"
  | "timestamp_us"
  | "timestamp_ms"
  | "timestamp_ns"
  | "timestamp_s"
  | "timestamptz";

function floorDiv(n: bigint, d: bigint): bigint {
  const q = n / d;
  return n % d < 0n ? q - 1n : q;
}

/** Rounds half away from zero (DuckDB's cast from microseconds to ms/s). */
function roundDiv(n: bigint, d: bigint): bigint {
  const q = n / d;
  const r = n % d;
  if (r === 0n) return q;
  if (n >= 0n) return r * 2n >= d ? q + 1n : q;
  return -r * 2n >= d ? q - 1n : q;
}

export function parseTimestamp(type: TimestampType, input: StoredValue, path: string): StoredValue {
  if (typeof input !== "string")
    refuse(path, type, input, "a timestamp is a string YYYY-MM-DD[ HH:MM[:SS[.fraction]]]");
  if (input === "infinity" || input === "-infinity") return input;
  const tz = type === "timestamptz";
  const m = (tz ? TSTZ_RE : TS_RE).exec(input);
  if (!m)
    refuse(
      path,
      type,
      input,
      tz
        ? "expected YYYY-MM-DD[ HH:MM[:SS[.fraction]]][±HH[:MM]]"
        : "expected YYYY-MM-DD[ HH:MM[:SS[.fraction]]] without a UTC offset",
    );
  const days = dateDays(type, input, path, m[1] ?? "", m[2] ?? "", m[3] ?? "");
  const nanosOfDay = timeNanos(type, input, path, m.slice(4, 8));
  const offset = tz ? offsetSeconds(type, input, path, m[8]) : 0;
  const ns = type === "timestamp_ns";
  // DuckDB parses to microseconds (nanoseconds for TIMESTAMP_NS), dropping further digits.
  const unit = ns ? 1n : 1000n;
  let t = floorDiv(BigInt(days) * US_PER_DAY * 1000n + nanosOfDay - BigInt(offset) * 1_000_000_000n, unit);
  // The int64 extremes are DuckDB's ±infinity, not instants.
  if (ns && (t >= INT64_MAX || t <= -INT64_MAX))
    refuse(path, type, input, "outside TIMESTAMP_NS's range (1677-2262)");
  if (type === "timestamp_ms") t = roundDiv(t, 1000n) * 1000n;
  if (type === "timestamp_s") t = roundDiv(t, 1_000_000n) * 1_000_000n;
  const perDay = ns ? US_PER_DAY * 1000n : US_PER_DAY;
  let day = t / perDay;
  let rest = t % perDay;
  if (rest < 0n) {
    rest += perDay;
    day -= 1n;
  }
  const [y] = civilFromDays(Number(day));
  if (y < 1 || y > 9999) refuse(path, type, input, "outside the years 0001-9999");
  const text = `${dateText(Number(day))} ${timeOfDayText(ns ? rest : rest * 1000n, ns ? 9 : 6)}`;
  return tz ? `${text}+00` : text;
}

const INTERVAL_UNITS: Record<string, [months: number, days: number, micros: bigint]> = {
  year: [12, 0, 0n],
  month: [1, 0, 0n],
  mon: [1, 0, 0n],
  week: [0, 7, 0n],
  day: [0, 1, 0n],
  hour: [0, 0, 3_600_000_000n],
  minute: [0, 0, 60_000_000n],
  second: [0, 0, 1_000_000n],
  millisecond: [0, 0, 1000n],
  microsecond: [0, 0, 1n],
};
const INT32_MAX = 2 ** 31 - 1;
const INT64_MAX = 2n ** 63n - 1n;

/**
 * An interval: `<n> <unit>` parts (year, month/mon, week, day, hour, minute, second, millisecond,
 * microsecond, singular or plural) and an optional trailing `[-]HH:MM:SS[.fraction]`, DuckDB's own
 * output form included. Stored as DuckDB's text: `1 year 2 months 3 days 04:05:06.5`.
 */
export function parseInterval(input: StoredValue, path: string): StoredValue {
  if (typeof input !== "string")
    refuse(path, "interval", input, "an interval is a string such as '1 day 02:00:00'");
  const tokens = input.trim() === input ? input.split(" ") : [];
  let months = 0;
  let days = 0;
  let micros = 0n;
  let i = 0;
  let seen = false;
  while (i + 1 < tokens.length && /^[+-]?\d+$/.test(tokens[i] ?? "")) {
    const unitName = (tokens[i + 1] ?? "").toLowerCase().replace(/s$/, "");
    const unit = INTERVAL_UNITS[unitName];
    if (!unit) refuse(path, "interval", input, `unknown unit ${tokens[i + 1]}`);
    const n = BigInt(tokens[i] ?? "0");
    months += Number(n) * unit[0];
    days += Number(n) * unit[1];
    micros += n * unit[2];
    i += 2;
    seen = true;
  }
  if (i === tokens.length - 1) {
    const m = /^([+-]?)(\d+):(\d{2}):(\d{2})(?:\.(\d+))?$/.exec(tokens[i] ?? "");
    if (!m) refuse(path, "interval", input, "expected <n> <unit> parts and an optional HH:MM:SS");
    const [, sign, h = "0", mi = "0", s = "0", frac = ""] = m;
    // DuckDB negates the hours/minutes/seconds parts before a negative clock too; refuse the mix (0120).
    if (sign === "-" && micros !== 0n)
      refuse(path, "interval", input, "a negative HH:MM:SS cannot follow hour, minute or second parts");
    if (Number(mi) > 59 || Number(s) > 59) refuse(path, "interval", input, "minutes and seconds go up to 59");
    const t =
      ((BigInt(h) * 60n + BigInt(mi)) * 60n + BigInt(s)) * 1_000_000n +
      BigInt(frac.slice(0, 6).padEnd(6, "0"));
    micros += sign === "-" ? -t : t;
    i++;
    seen = true;
  }
  if (!seen || i !== tokens.length)
    refuse(path, "interval", input, "expected <n> <unit> parts and an optional HH:MM:SS");
  if (Math.abs(months) > INT32_MAX || Math.abs(days) > INT32_MAX || micros > INT64_MAX || micros < -INT64_MAX)
    refuse(path, "interval", input, "out of range");
  return intervalText(months, days, micros);
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${Math.abs(n) === 1 ? "" : "s"}`;
}

function intervalText(months: number, days: number, micros: bigint): string {
  const parts: string[] = [];
  const years = Math.trunc(months / 12);
  const mons = months % 12;
  if (years !== 0) parts.push(plural(years, "year"));
  if (mons !== 0) parts.push(plural(mons, "month"));
  if (days !== 0) parts.push(plural(days, "day"));
  if (micros !== 0n || parts.length === 0) {
    const neg = micros < 0n;
    const abs = neg ? -micros : micros;
    const secs = abs / 1_000_000n;
    const text = `${pad(secs / 3600n, 2)}:${pad((secs / 60n) % 60n, 2)}:${pad(secs % 60n, 2)}${fraction(abs % 1_000_000n, 6)}`;
    parts.push(neg ? `-${text}` : text);
  }
  return parts.join(" ");
}

/**
 * DuckDB's text for a TIMESTAMPTZ held as epoch microseconds, in UTC (`2026-12-01 08:30:38.123456+00`):
 * what DuckDB's CSV and JSON writers print for DuckLake's `snapshot_time`, and what it loads back.
 */
export function timestamptzFromEpochMicros(micros: number): string {
  const t = BigInt(Math.trunc(micros));
  let day = t / US_PER_DAY;
  let rest = t % US_PER_DAY;
  if (rest < 0n) {
    rest += US_PER_DAY;
    day -= 1n;
  }
  return `${dateText(Number(day))} ${timeOfDayText(rest * 1000n, 6)}+00`;
}
