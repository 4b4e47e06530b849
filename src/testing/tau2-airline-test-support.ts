/** Shared test fixtures: the real airline database (loaded once) and a tool kit over it. */
import path from "node:path";
import { DatabaseBase } from "../envs/core/copy-on-write-database.js";
import { readJsonFile } from "../envs/core/read-json-file.js";
import { ToolKit } from "../envs/core/tool-kit.js";
import { tau2DomainDirectory } from "./shared-data.js";
import type { AirlineState, AirlineTables } from "../envs/tau2/airline/database.js";
import { airlineDomain } from "../envs/tau2/airline/index.js";

let base: DatabaseBase<AirlineTables> | undefined;

/** The frozen base built from `shared/data/tau2/airline/db.json`. */
export function airlineBase(): DatabaseBase<AirlineTables> {
  base ??= new DatabaseBase<AirlineTables>(
    readJsonFile(path.join(tau2DomainDirectory("airline"), "db.json"), airlineDomain.databaseSchema),
  );
  return base;
}

/** A fresh episode state over the real database. */
export function freshState(): AirlineState {
  return airlineBase().createState();
}

/** The airline tools with τ²-bench's argument checks and serialisation. */
export const airlineToolKit = new ToolKit<AirlineState>(
  airlineDomain.className,
  airlineDomain.tools,
  airlineDomain.isFloat,
);

/** Runs one call and returns the observation text exactly as the agent would see it. */
export function observe(state: AirlineState, name: string, args: Record<string, unknown>): string {
  return airlineToolKit.execute(state, name, args).content;
}

/** Runs one call that must succeed and returns its JSON-parsed observation. */
export function observeJson(state: AirlineState, name: string, args: Record<string, unknown>): unknown {
  const result = airlineToolKit.execute(state, name, args);
  if (result.error) throw new Error(`${name} failed: ${result.content}`);
  return JSON.parse(result.content) as unknown;
}
