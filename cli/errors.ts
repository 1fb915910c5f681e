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
