/** A run directory the dashboard shows: its layout, a check that it is one, and the stores it may hold (opened read-side). */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { openRunDirectory, type RunDirectory } from "../run/run-directory.js";
import { openTrajectoryStore, type TrajectoryStore } from "../store/trajectory-store.js";
import { NotARunDirectoryError } from "./not-a-run-directory-error.js";

/** One run of the dashboard: `id` is its position on the command line. */
export interface DashboardRun {
  id: number;
  /** The directory's name (with its parent's when two runs share a name). */
  label: string;
  root: string;
  run: RunDirectory;
}

/** The runs given on the command line, labelled by directory name. */
export function dashboardRuns(roots: readonly string[]): DashboardRun[] {
  const names = roots.map((root) => path.basename(path.resolve(root)));
  return roots.map((root, id) => {
    const resolved = path.resolve(root);
    const label = names.filter((name) => name === names[id]).length > 1 ? path.join(path.basename(path.dirname(resolved)), names[id]!) : names[id]!;
    return { id, label, root: resolved, run: openRunDirectory(resolved) };
  });
}

/** Throws `NotARunDirectoryError` unless the directory exists and holds config.json, stages/ or store.sqlite. */
export function checkRunDirectory(run: RunDirectory): void {
  const stat = statSync(run.root, { throwIfNoEntry: false });
  if (stat === undefined) throw new NotARunDirectoryError(run.root, "no such directory");
  if (!stat.isDirectory()) throw new NotARunDirectoryError(run.root, "it is a file");
  if (![run.configFile, run.storeFile, path.join(run.root, "stages")].some((file) => existsSync(file))) {
    throw new NotARunDirectoryError(run.root, "it holds none of config.json, stages/ and store.sqlite (make one with `trace run CONFIG`)");
  }
}

/** Runs `read` on the store in `file`, or returns `missing` when the file does not exist yet (nothing is created). */
export function withExistingStore<T>(file: string, missing: T, read: (store: TrajectoryStore) => T): T {
  if (!existsSync(file)) return missing;
  const store = openTrajectoryStore(file);
  try {
    return read(store);
  } finally {
    store.close();
  }
}
