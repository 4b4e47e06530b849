/**
 * Checks of paths given on the command line or in a configuration, made before any work starts: a directory to create
 * (a run directory) must not be a file or lie under one; a file to write must not be a directory and its directory must
 * be creatable. Each failure is a one-line `UnusablePathError` naming the path.
 */
import { statSync, type Stats } from "node:fs";
import path from "node:path";
import { TraceError } from "../spec/trace-error.js";

/** A path that cannot be used as asked: `what` names its role (e.g. "run directory", "--out"), `reason` why not. */
export class UnusablePathError extends TraceError {
  override readonly name = "UnusablePathError";
  constructor(
    readonly what: string,
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${what} ${path}: ${reason}`, { category: "usage" });
  }
}

function statOf(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

/** The nearest existing ancestor of `file` (itself excluded) that is not a directory, if any. */
function fileAncestor(file: string): string | undefined {
  let current = path.resolve(file);
  for (;;) {
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
    const stats = statOf(current);
    if (stats !== undefined) return stats.isDirectory() ? undefined : current;
  }
}

/** `directory` exists as a directory or can be created (it is no file, and no file lies on its path). */
export function checkDirectoryPath(directory: string, what: string): void {
  const stats = statOf(directory);
  if (stats !== undefined) {
    if (!stats.isDirectory()) throw new UnusablePathError(what, directory, "is a file, not a directory");
    return;
  }
  const blocking = fileAncestor(directory);
  if (blocking !== undefined) throw new UnusablePathError(what, directory, `cannot be created: ${blocking} is a file, not a directory`);
}

/**
 * `file` can be written: it is not a directory, and its directory exists (or, with `createDirectory`, can be
 * created).
 */
export function checkOutputFilePath(file: string, what: string, options: { createDirectory?: boolean } = {}): void {
  const stats = statOf(file);
  if (stats?.isDirectory() === true) throw new UnusablePathError(what, file, "is a directory, not a file");
  if (stats !== undefined) return;
  const blocking = fileAncestor(file);
  if (blocking !== undefined) throw new UnusablePathError(what, file, `cannot be written: ${blocking} is a file, not a directory`);
  const directory = path.dirname(path.resolve(file));
  if (options.createDirectory !== true && statOf(directory) === undefined) throw new UnusablePathError(what, file, `cannot be written: directory ${path.dirname(file)} does not exist`);
}

/** `directory` exists and is a directory (something to read from). */
export function checkExistingDirectory(directory: string, what: string): void {
  const stats = statOf(directory);
  if (stats === undefined) throw new UnusablePathError(what, directory, "no such directory");
  if (!stats.isDirectory()) throw new UnusablePathError(what, directory, "is a file, not a directory");
}
