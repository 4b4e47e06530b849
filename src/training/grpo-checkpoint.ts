/**
 * GRPO checkpoints of one capability directory: `step-XXXX/` (the adapter, PEFT layout), `state/step-XXXX/` (adapter +
 * optimizer, for resume) and `checkpoint.json` naming the last complete one (written atomically after both).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { TrainerClient } from "../worker/trainer-client.js";

/** What `checkpoint.json` records: iterations finished, and the directories relative to the capability directory. */
export interface GrpoCheckpoint {
  iteration: number;
  adapterPath: string;
  statePath: string;
}

/** `step-0003`. */
function stepDirectoryName(iteration: number): string {
  return `step-${String(iteration).padStart(4, "0")}`;
}

/** The last complete checkpoint, or null. */
export function readCheckpoint(directory: string): GrpoCheckpoint | null {
  const file = path.join(directory, "checkpoint.json");
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, "utf8")) as GrpoCheckpoint;
}

/** Saves the adapter and the state of `iteration`, then points `checkpoint.json` at them and drops the older state. */
export async function writeCheckpoint(trainer: TrainerClient, adapter: string, directory: string, iteration: number): Promise<GrpoCheckpoint> {
  const previous = readCheckpoint(directory);
  const checkpoint: GrpoCheckpoint = { iteration, adapterPath: stepDirectoryName(iteration), statePath: path.join("state", stepDirectoryName(iteration)) };
  mkdirSync(path.join(directory, "state"), { recursive: true });
  await trainer.saveAdapter({ adapter, path: path.resolve(directory, checkpoint.adapterPath) });
  await trainer.saveState({ adapter, path: path.resolve(directory, checkpoint.statePath) });
  const file = path.join(directory, "checkpoint.json");
  writeFileSync(`${file}.tmp`, JSON.stringify(checkpoint, null, 2) + "\n");
  renameSync(`${file}.tmp`, file);
  if (previous !== null && previous.statePath !== checkpoint.statePath) rmSync(path.join(directory, previous.statePath), { recursive: true, force: true });
  return checkpoint;
}
