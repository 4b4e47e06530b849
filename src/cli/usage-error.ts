/** A bad command-line value: printed as one line. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
