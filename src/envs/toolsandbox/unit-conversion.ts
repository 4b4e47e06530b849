/**
 * `pint.Quantity(amount, from_unit).to(to_unit).magnitude` for the units a ToolSandbox conversation asks for
 * (temperature, length, mass, volume, time, speed, area), with pint's names, plurals and abbreviations and its error
 * types. Pint's full registry is not ported: other units raise `UndefinedUnitError` as unknown names do.
 */
import { PythonException } from "./python-values.js";

interface UnitDefinition {
  dimension: string;
  /** Value in base units = (value + offset) × scale. */
  scale: number;
  offset?: number;
  canonical: string;
}

const UNITS = new Map<string, UnitDefinition>();

function define(names: readonly string[], dimension: string, scale: number, offset?: number): void {
  const definition: UnitDefinition = { dimension, scale, canonical: names[0] as string };
  if (offset !== undefined) definition.offset = offset;
  for (const name of names) UNITS.set(name, definition);
}

define(["kelvin", "K", "degK"], "[temperature]", 1);
define(["degree_Celsius", "celsius", "degC", "°C", "degreeC"], "[temperature]", 1, 273.15);
define(["degree_Fahrenheit", "fahrenheit", "degF", "°F", "degreeF"], "[temperature]", 5 / 9, 459.67);
define(["meter", "m", "meters", "metre", "metres"], "[length]", 1);
define(["kilometer", "km", "kilometers", "kilometre", "kilometres"], "[length]", 1000);
define(["centimeter", "cm", "centimeters", "centimetre"], "[length]", 0.01);
define(["millimeter", "mm", "millimeters", "millimetre"], "[length]", 0.001);
define(["mile", "mi", "miles"], "[length]", 1609.344);
define(["yard", "yd", "yards"], "[length]", 0.9144);
define(["foot", "ft", "feet"], "[length]", 0.3048);
define(["inch", "in", "inches"], "[length]", 0.0254);
define(["nautical_mile", "nmi"], "[length]", 1852);
define(["gram", "g", "grams"], "[mass]", 0.001);
define(["kilogram", "kg", "kilograms"], "[mass]", 1);
define(["milligram", "mg"], "[mass]", 1e-6);
define(["pound", "lb", "pounds", "lbs"], "[mass]", 0.45359237);
define(["ounce", "oz", "ounces"], "[mass]", 0.028349523125);
define(["metric_ton", "tonne", "t"], "[mass]", 1000);
define(["liter", "l", "L", "liters", "litre", "litres"], "[volume]", 0.001);
define(["milliliter", "ml", "mL", "milliliters"], "[volume]", 1e-6);
define(["gallon", "gal", "gallons"], "[volume]", 0.003785411784);
define(["quart", "qt", "quarts"], "[volume]", 0.000946352946);
define(["pint", "pt", "pints"], "[volume]", 0.000473176473);
define(["cup", "cups"], "[volume]", 0.0002365882365);
define(["fluid_ounce", "floz"], "[volume]", 2.95735295625e-5);
define(["second", "s", "sec", "seconds"], "[time]", 1);
define(["minute", "min", "minutes"], "[time]", 60);
define(["hour", "h", "hr", "hours"], "[time]", 3600);
define(["day", "d", "days"], "[time]", 86400);
define(["week", "weeks"], "[time]", 604800);
define(["kilometer_per_hour", "kph", "km/h", "kmh"], "[speed]", 1000 / 3600);
define(["mile_per_hour", "mph"], "[speed]", 1609.344 / 3600);
define(["meter_per_second", "m/s", "mps"], "[speed]", 1);
define(["knot", "kt", "knots"], "[speed]", 1852 / 3600);
define(["square_meter", "m**2", "m^2"], "[area]", 1);
define(["square_kilometer", "km**2", "km^2"], "[area]", 1e6);
define(["square_mile", "mi**2", "mi^2"], "[area]", 1609.344 ** 2);
define(["acre", "acres"], "[area]", 4046.8564224);
define(["hectare", "ha"], "[area]", 1e4);

function lookup(name: string): UnitDefinition | undefined {
  return UNITS.get(name.trim().replaceAll(" ", "_"));
}

/** Converts `amount` (ToolSandbox retries with lower-cased names when a name is undefined). */
export function convertUnits(amount: number, fromUnit: string, toUnit: string): number {
  let from = lookup(fromUnit);
  let to = lookup(toUnit);
  let fromName = fromUnit;
  let toName = toUnit;
  if (from === undefined || to === undefined) {
    fromName = fromUnit.toLowerCase();
    toName = toUnit.toLowerCase();
    from = lookup(fromName);
    to = lookup(toName);
  }
  if (from === undefined) throw new PythonException("pint.errors.UndefinedUnitError", `'${fromName}' is not defined in the unit registry`);
  if (to === undefined) throw new PythonException("pint.errors.UndefinedUnitError", `'${toName}' is not defined in the unit registry`);
  if (from.dimension !== to.dimension) {
    throw new PythonException("pint.errors.DimensionalityError", `Cannot convert from '${from.canonical}' (${from.dimension}) to '${to.canonical}' (${to.dimension})`);
  }
  const base = (amount + (from.offset ?? 0)) * from.scale;
  return base / to.scale - (to.offset ?? 0);
}
