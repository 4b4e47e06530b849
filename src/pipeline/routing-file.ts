/** `RUN/eval/routing.json`: the routing decision of every target task. */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { RoutingDecision, RoutingOption } from "../routing/routing-option.js";

export interface RoutingFile {
  /** The options offered, in order (examples left out). */
  options: Omit<RoutingOption, "example">[];
  decisions: (RoutingDecision & { environment: string; taskId: string })[];
  /** Routing accuracy on evaluation tasks, when the target's instances name their family (TRACE-mini). */
  accuracy?: { tasks: number; correct: number; accuracy: number; note: string };
}

/** Path of the routing file. */
export function routingFile(runDirectory: string): string {
  return path.join(runDirectory, "eval", "routing.json");
}

/** Reads the routing file. */
export function readRoutingFile(runDirectory: string): RoutingFile {
  return JSON.parse(readFileSync(routingFile(runDirectory), "utf8")) as RoutingFile;
}
