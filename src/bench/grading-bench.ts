/**
 * Benchmark: τ² grading cost per trajectory (copy-on-write states, touched records compared) next to a naive grader
 * that deep-copies the whole database for the gold and the replayed state and compares SHA-256 hashes of their
 * canonical JSON, as τ²-bench does. Same trajectories, same run; verdicts must agree. Prints a table.
 */
import { createHash } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { Message } from "../spec/message.js";
import type { DatabaseState } from "../envs/core/copy-on-write-database.js";
import { loadTau2Domain } from "../envs/tau2/domains.js";
import type { Tau2DomainData } from "../envs/tau2/domain-data.js";
import { goldConversation } from "../envs/tau2/gold-trajectory.js";
import { goldState, gradeTau2, replayConversation } from "../envs/tau2/grade.js";
import type { Tau2Task } from "../envs/tau2/task-schema.js";

/** A copy with object keys sorted at every level, so `JSON.stringify` gives Python's `sort_keys=True` order. */
function sortKeys(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(sortKeys);
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function naiveHash(state: DatabaseState<Record<string, object>>): string {
  const copy = structuredClone(state.toJson());
  return createHash("sha256").update(canonicalJson(copy)).digest("hex");
}

/** The naive DB verdict: whole-database copies and hashes. */
function naiveDatabaseMatch(data: Tau2DomainData, task: Tau2Task, messages: readonly Message[]): boolean {
  const gold = goldState(data, task);
  const replay = replayConversation(data, messages);
  return naiveHash(gold) === naiveHash(replay.state);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function timeEach(run: () => unknown, repetitions: number): number {
  const samples: number[] = [];
  for (let index = 0; index < repetitions; index++) {
    const start = performance.now();
    run();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

export interface BenchRow {
  domain: string;
  /** One-time cost: read, parse, validate and freeze `db.json`, read tasks and policy. */
  loadMs: number;
  trajectories: number;
  /** Gold trajectories with their last write dropped, used only to compare verdicts. */
  mutatedCases: number;
  fastMs: number;
  naiveMs: number;
  ratio: number;
  verdictsAgree: boolean;
}

/** Benchmarks one domain over its gold trajectories. */
export function benchDomain(domain: string, directory: string, repetitions: number): BenchRow {
  const loadStart = performance.now();
  const data = loadTau2Domain(domain, directory);
  const loadMs = performance.now() - loadStart;
  const cases = data.tasks.map((task) => ({ task, messages: goldConversation(data, task) }));
  const fast: number[] = [];
  const naive: number[] = [];
  let verdictsAgree = true;
  for (const { task, messages } of cases) {
    const verdict = gradeTau2(data, task, messages, "user_stop").rewardInfo.db_check?.db_match ?? true;
    const naiveVerdict = naiveDatabaseMatch(data, task, messages);
    if (verdict !== naiveVerdict) verdictsAgree = false;
    fast.push(timeEach(() => gradeTau2(data, task, messages, "user_stop"), repetitions));
    naive.push(timeEach(() => naiveDatabaseMatch(data, task, messages), Math.max(1, Math.floor(repetitions / 10))));
  }
  // Verdicts must also agree where the database differs: drop each task's last write.
  let mutatedCases = 0;
  for (const task of data.tasks) {
    const actions = task.evaluation_criteria?.actions ?? [];
    const lastWrite = actions.findLastIndex((action) => data.toolKit.kind(action.name) === "write");
    if (lastWrite < 0) continue;
    const messages = goldConversation(data, task, { actions: actions.filter((_, index) => index !== lastWrite) });
    const verdict = gradeTau2(data, task, messages, "user_stop").rewardInfo.db_check?.db_match ?? true;
    if (verdict !== naiveDatabaseMatch(data, task, messages)) verdictsAgree = false;
    mutatedCases++;
  }
  const fastMs = median(fast);
  const naiveMs = median(naive);
  return { domain, loadMs, trajectories: cases.length, mutatedCases, fastMs, naiveMs, ratio: naiveMs / fastMs, verdictsAgree };
}

export function formatTable(rows: readonly BenchRow[]): string {
  const header = "domain   | load ms (once) | trajectories | median ms/trajectory (trace) | median ms/trajectory (naive copy+hash) | speed-up | verdicts agree";
  const lines = rows.map(
    (row) =>
      `${row.domain.padEnd(8)} | ${row.loadMs.toFixed(0).padStart(13)} | ${String(row.trajectories).padStart(12)} | ${row.fastMs.toFixed(3).padStart(28)} | ${row.naiveMs.toFixed(1).padStart(38)} | ${row.ratio.toFixed(0).padStart(7)}x | ${row.verdictsAgree ? "yes" : "NO"} (${row.trajectories} gold + ${row.mutatedCases} mutated)`,
  );
  return [header, "-".repeat(header.length), ...lines].join("\n");
}
