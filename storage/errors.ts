/**
 * Typed storage errors. Every error a caller can act on has a stable `code` (the class name) that crosses
 * RPC and HTTP unchanged; messages say what happened and what to do.
 */
export abstract class CodedError extends Error {
  abstract readonly code: string;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
