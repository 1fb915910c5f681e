/** The CLI's own failures (bad input, files), printed like the API's: `code: message`. */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Node's file errors, by errno code: what the user did wrong, in words. */
const FILE_ERRORS: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EISDIR: "it is a directory, not a file",
  ENOTDIR: "a part of the path is not a directory",
};

interface SystemError extends Error {
  code?: string;
  path?: string;
  cause?: unknown;
}

/**
 * A failure that is not the API's (the API's envelope already says what to do) as a code and message a
 * user can act on: a file that cannot be read, a server that cannot be reached, else `Internal`.
 * `url` is the API origin the command used.
 */
export function describeFailure(e: unknown, url: string): { code: string; message: string } {
  const err = e as SystemError;
  if (err && typeof err.code === "string" && err.code in FILE_ERRORS && typeof err.path === "string") {
    return {
      code: err.code === "ENOENT" ? "FileNotFound" : "FileUnreadable",
      message: `cannot read ${err.path}: ${FILE_ERRORS[err.code]}; check the path (relative to ${process.cwd()})`,
    };
  }
  if (e instanceof TypeError && e.message === "fetch failed") return unreachable(err.cause, url);
  return { code: "Internal", message: e instanceof Error ? e.message : String(e) };
}

/** The API did not answer at all (refused, unknown host, reset). */
export function unreachable(cause: unknown, url: string): { code: string; message: string } {
  const c = cause as SystemError | undefined;
  const why = c ? [c.code, c.message].filter((x) => x).join(": ") : "no answer";
  return {
    code: "Unreachable",
    message: `could not reach the API at ${url} (${why}); is the server running (npm start)? set the origin with --url or DUCKLAKE_EDGE_URL`,
  };
}
