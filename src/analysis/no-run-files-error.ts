/** A directory that should hold labeling runs has no `run_*.json`. */
export class NoRunFilesError extends Error {
  override readonly name = "NoRunFilesError";
  constructor(readonly directory: string) {
    super(`${directory}: no run_*.json files to aggregate`);
  }
}
