/** ToolSandbox's setting tools (`tool_sandbox/tools/setting.py`): cellular, wifi, location service, low battery mode. */
import type { Row } from "./export-schema.js";
import { PyFloat, type PyValue } from "./python-literal.js";
import { PythonException } from "./python-values.js";
import type { SandboxWorld } from "./sandbox-world.js";
import { validateType, type ToolArgument, type ToolImplementation } from "./tool-runtime.js";

type BooleanSetting = "cellular" | "wifi" | "location_service" | "low_battery_mode";

function settingsRow(world: SandboxWorld): Row {
  const row = world.database("SETTING")[0];
  if (row === undefined) throw new PythonException("IndexError", "index 0 is out of bounds for sequence of length 0");
  return row;
}

/** `get_boolean_settings`. */
export function getBooleanSetting(world: SandboxWorld, name: BooleanSetting): boolean {
  return settingsRow(world)[name] as boolean;
}

/** `set_boolean_settings`: `ValueError` when already in that state. */
export function setBooleanSetting(world: SandboxWorld, name: BooleanSetting, on: ToolArgument): void {
  validateType(on, "on", "bool");
  const rows = world.database("SETTING");
  if (Boolean((rows[0] as Row)[name]) === on) throw new PythonException("ValueError", `${name} already ${on ? "enabled" : "disabled"}`);
  world.update("SETTING", rows.map((row) => ({ ...row, [name]: row[name] === null ? null : !(row[name] as boolean) })));
}

const getter = (name: BooleanSetting): ToolImplementation => ({ typechecked: false, run: (world) => getBooleanSetting(world, name) });

function setter(name: Exclude<BooleanSetting, "low_battery_mode">, label: string, validateFirst: boolean): ToolImplementation {
  return {
    typechecked: false,
    run(world, args) {
      const on = args.on as ToolArgument;
      if (validateFirst) validateType(on, "on", "bool");
      if (on !== false && on !== null && on !== 0 && on !== "" && getBooleanSetting(world, "low_battery_mode")) {
        throw new PythonException("PermissionError", `${label} cannot be turned on in low battery mode`);
      }
      setBooleanSetting(world, name, on);
      return null;
    },
  };
}

export const SETTING_TOOLS: Record<string, ToolImplementation> = {
  set_low_battery_mode_status: {
    typechecked: false,
    run(world, args) {
      const on = args.on as ToolArgument;
      validateType(on, "on", "bool");
      setBooleanSetting(world, "low_battery_mode", on);
      if (on === true) {
        for (const dependent of ["cellular", "wifi", "location_service"] as const) {
          try {
            setBooleanSetting(world, dependent, false);
          } catch (error) {
            if (!(PythonException.isInstance(error) && error.pythonType === "ValueError")) throw error;
          }
        }
      }
      return null;
    },
  },
  get_low_battery_mode_status: getter("low_battery_mode"),
  set_location_service_status: setter("location_service", "Location service", false),
  get_location_service_status: getter("location_service"),
  set_cellular_service_status: setter("cellular", "Cellular service", true),
  get_cellular_service_status: getter("cellular"),
  set_wifi_status: setter("wifi", "Wifi", true),
  get_wifi_status: getter("wifi"),
  get_current_location: {
    typechecked: false,
    run(world) {
      return currentLocation(world);
    },
  },
};

/** `get_current_location`: `PermissionError` while location service is off. */
export function currentLocation(world: SandboxWorld): { latitude: PyValue; longitude: PyValue } {
  if (!getBooleanSetting(world, "location_service")) throw new PythonException("PermissionError", "Location service is not enabled.");
  const row = settingsRow(world);
  return { latitude: new PyFloat(row.latitude as number), longitude: new PyFloat(row.longitude as number) };
}
