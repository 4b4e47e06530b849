/**
 * Scenarios rebuilt for another "now" and local time zone: `time_dependence.json.gz` lists every value of the export
 * that depends on them (starting timestamps, milestone targets such as "tomorrow 5 PM local", years in tool traces
 * and user instructions) with its formula; each is recomputed for the declared clock.
 */
import path from "node:path";
import { z } from "zod";
import type { ScenarioData, ToolSandboxExport } from "./export-schema.js";
import { fromTimestamp, isoWeekday, makeDateTime, toTimestamp } from "./local-time.js";
import { readMaybeGzipJson } from "./load-export.js";
import { pythonFormat } from "./python-values.js";
import type { SandboxClock } from "./sandbox-world.js";
import { TraceError } from "../../spec/trace-error.js";

/** A declared clock other than the export's, without the time-dependence list to rebuild the scenarios for it. */
export class MissingTimeDependenceError extends TraceError {
  override readonly name = "MissingTimeDependenceError";
  constructor(readonly clock: SandboxClock) {
    super(`a declared now (${clock.now}) or UTC offset (${clock.utcOffsetHours} h) other than the export's needs time_dependence.json.gz`, { category: "usage" });
  }
}

const entrySchema = z.object({
  scenario: z.string(),
  path: z.string(),
  kind: z.enum(["now_relative", "current_local_year", "fixed_local_datetime", "local_day_offset", "next_iso_weekday", "string_year_template"]),
  offset_seconds: z.number().optional(),
  local: z.string().optional(),
  days: z.number().int().optional(),
  isoweekday: z.number().int().optional(),
  extra_days: z.number().int().optional(),
  time_of_day: z.string().optional(),
  template: z.string().optional(),
});
export type TimeDependentValue = z.infer<typeof entrySchema>;
const fileSchema = z.object({ entries: z.array(entrySchema) });

/** Reads `time_dependence.json.gz` from the data directory. */
export function loadTimeDependence(dataDirectory: string): TimeDependentValue[] {
  return readMaybeGzipJson(path.resolve(dataDirectory, "time_dependence.json.gz"), fileSchema).entries;
}

function atTimeOfDay(clock: SandboxClock, dayShift: number, timeOfDay: string): number {
  const today = fromTimestamp(clock.now, clock.utcOffsetHours);
  const [hour, minute, second] = timeOfDay.split(":").map(Number) as [number, number, number];
  const date = new Date(Date.UTC(today.year, today.month - 1, today.day + dayShift));
  return toTimestamp(makeDateTime(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), hour, minute, second), clock.utcOffsetHours);
}

/** The value of one entry under `clock`. */
export function timeDependentValue(entry: TimeDependentValue, clock: SandboxClock): number | string {
  const year = fromTimestamp(clock.now, clock.utcOffsetHours).year;
  switch (entry.kind) {
    case "now_relative":
      return clock.now + (entry.offset_seconds ?? 0);
    case "current_local_year":
      return year;
    case "fixed_local_datetime": {
      const [date, time] = (entry.local ?? "").split("T") as [string, string];
      const [y, m, d] = date.split("-").map(Number) as [number, number, number];
      const [hh, mm, ss] = time.split(":").map(Number) as [number, number, number];
      return toTimestamp(makeDateTime(y, m, d, hh, mm, ss), clock.utcOffsetHours);
    }
    case "local_day_offset":
      return atTimeOfDay(clock, entry.days ?? 0, entry.time_of_day ?? "00:00:00");
    case "next_iso_weekday": {
      const today = isoWeekday(fromTimestamp(clock.now, clock.utcOffsetHours));
      const ahead = ((((entry.isoweekday ?? 1) - today) % 7) + 7) % 7;
      return atTimeOfDay(clock, ahead + (entry.extra_days ?? 0), entry.time_of_day ?? "00:00:00");
    }
    case "string_year_template":
      return pythonFormat(entry.template ?? "", { year });
  }
}

function setPointer(root: unknown, pointer: string, value: unknown): unknown {
  const [outer, inner] = pointer.split("#") as [string, string | undefined];
  const keys = outer.split("/").slice(1);
  let container = root as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) container = container[key] as Record<string, unknown>;
  const last = keys.at(-1) as string;
  if (inner === undefined) container[last] = value;
  else container[last] = JSON.stringify(setPointer(JSON.parse(container[last] as string), inner, value));
  return root;
}

/** The export with every time-dependent value recomputed for `clock` (the export itself is left unchanged). */
export function rebaseExport(data: ToolSandboxExport, entries: readonly TimeDependentValue[], clock: SandboxClock): ToolSandboxExport {
  const byScenario = new Map<string, TimeDependentValue[]>();
  for (const entry of entries) byScenario.set(entry.scenario, [...(byScenario.get(entry.scenario) ?? []), entry]);
  const scenarios = data.scenarios.map((scenario): ScenarioData => {
    const own = byScenario.get(scenario.name);
    if (own === undefined) return scenario;
    const copy = structuredClone(scenario);
    for (const entry of own) setPointer(copy, entry.path, timeDependentValue(entry, clock));
    return copy;
  });
  return { ...data, meta: { ...data.meta, frozen_now_posix: clock.now, tz_offset_hours: clock.utcOffsetHours }, scenarios };
}
