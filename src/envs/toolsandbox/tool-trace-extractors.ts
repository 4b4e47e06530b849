/** ToolSandbox's tool-trace extractors (`tool_sandbox/common/tool_trace_extractors.py`): values pulled from one trace. */
import { PythonException, pythonFixed, pythonFloat, pythonInt } from "./python-values.js";

/** A parsed tool trace: `{"tool_name", "arguments", "result"}`. */
export type ToolTrace = Record<string, unknown>;
export type ToolTraceExtractor = (trace: ToolTrace) => Record<string, unknown>[];

function item(container: unknown, key: string): unknown {
  if (container === null || container === undefined) throw new PythonException("TypeError", "'NoneType' object is not subscriptable");
  if (typeof container === "string" || Array.isArray(container)) throw new PythonException("TypeError", "indices must be integers or slices, not str");
  if (typeof container !== "object") throw new PythonException("TypeError", "object is not subscriptable");
  const record = container as Record<string, unknown>;
  if (!Object.hasOwn(record, key)) throw new PythonException("KeyError", `'${key}'`);
  return record[key];
}

/** `default_value_normalization`: a float in 0–3 decimals; anything else as `str`. */
export function defaultValueNormalization(value: number): string[] {
  return [0, 1, 2, 3].map((digits) => pythonFixed(value, digits));
}

const EXTRACTORS: Record<string, ToolTraceExtractor> = {
  search_weather_around_lat_lon_temperature_extractor(trace) {
    try {
      const temperature = pythonFloat(item(item(trace, "result"), "current_temperature"));
      return defaultValueNormalization(temperature).map((text) => ({ temperature: text }));
    } catch (error) {
      if (PythonException.isInstance(error) && (error.pythonType === "KeyError" || error.pythonType === "TypeError")) return [];
      throw error;
    }
  },
  result_to_timestamp0_extractor: (trace) => [{ timestamp_0: pythonFloat(item(trace, "result")) }],
  result_to_timestamp1_extractor: (trace) => [{ timestamp_1: pythonFloat(item(trace, "result")) }],
  days_extractor: (trace) => [{ days: pythonInt(item(item(trace, "result"), "days")) }],
  lat_lon_dict_extractor: (trace) => {
    const result = item(trace, "result");
    return [{ latitude: item(result, "latitude"), longitude: item(result, "longitude") }];
  },
  current_temperature_extractor: (trace) => [{ amount: pythonFloat(item(item(trace, "result"), "current_temperature")) }],
  result_to_temperature_extractor: (trace) => defaultValueNormalization(pythonFloat(item(trace, "result"))).map((text) => ({ temperature: text })),
  result_to_reminder_timestamp_lowerbound_extractor: (trace) => [{ reminder_timestamp_lowerbound: pythonFloat(item(trace, "result")) }],
  min_temperature_amount_extractor: (trace) => [{ amount: pythonFloat(item(item(trace, "result"), "min_temperature")) }],
  min_temperature_extractor: (trace) => defaultValueNormalization(pythonFloat(item(trace, "result"))).map((text) => ({ min_temperature: text })),
};

/** An extractor by its ToolSandbox name. */
export function toolTraceExtractor(name: string): ToolTraceExtractor {
  const extractor = EXTRACTORS[name];
  if (extractor === undefined) throw new PythonException("KeyError", `unknown tool trace extractor ${name}`);
  return extractor;
}
