/** ToolSandbox's utility tools (`tool_sandbox/tools/utilities.py`): time, units, distances, holidays. */
import { partialRatio, defaultProcess } from "./fuzzy-match.js";
import { fromTimestamp, isoWeekday, localMicroseconds, makeDateTime, timedeltaParts, toTimestamp } from "./local-time.js";
import { PyFloat } from "./python-literal.js";
import { PythonException } from "./python-values.js";
import { validateCoordinate, validateTimestamp } from "./tools-reminder.js";
import { getBooleanSetting } from "./tools-setting.js";
import { numberArgument, type ToolArgument, type ToolImplementation } from "./tool-runtime.js";
import { convertUnits } from "./unit-conversion.js";
import { usHolidays } from "./us-holidays.js";

/** Geodesic distance on the WGS-84 ellipsoid in kilometres (Vincenty's inverse formula; geopy uses Karney's, equal to well under a millimetre here). */
export function geodesicKilometres(latitude0: number, longitude0: number, latitude1: number, longitude1: number): number {
  const a = 6378137.0;
  const f = 1 / 298.257223563;
  const b = (1 - f) * a;
  const toRadians = Math.PI / 180;
  const L = (longitude1 - longitude0) * toRadians;
  const U1 = Math.atan((1 - f) * Math.tan(latitude0 * toRadians));
  const U2 = Math.atan((1 - f) * Math.tan(latitude1 * toRadians));
  const [sinU1, cosU1, sinU2, cosU2] = [Math.sin(U1), Math.cos(U1), Math.sin(U2), Math.cos(U2)];
  let lambda = L;
  let sinSigma = 0, cosSigma = 1, sigma = 0, cosSqAlpha = 1, cos2SigmaM = 0;
  for (let iteration = 0; iteration < 200; iteration++) {
    const sinLambda = Math.sin(lambda);
    const cosLambda = Math.cos(lambda);
    sinSigma = Math.sqrt((cosU2 * sinLambda) ** 2 + (cosU1 * sinU2 - sinU1 * cosU2 * cosLambda) ** 2);
    if (sinSigma === 0) return 0;
    cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda;
    sigma = Math.atan2(sinSigma, cosSigma);
    const sinAlpha = (cosU1 * cosU2 * sinLambda) / sinSigma;
    cosSqAlpha = 1 - sinAlpha * sinAlpha;
    cos2SigmaM = cosSqAlpha === 0 ? 0 : cosSigma - (2 * sinU1 * sinU2) / cosSqAlpha;
    const C = (f / 16) * cosSqAlpha * (4 + f * (4 - 3 * cosSqAlpha));
    const previous = lambda;
    lambda = L + (1 - C) * f * sinAlpha * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)));
    if (Math.abs(lambda - previous) < 1e-12) break;
  }
  const uSq = (cosSqAlpha * (a * a - b * b)) / (b * b);
  const A = 1 + (uSq / 16384) * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)));
  const B = (uSq / 1024) * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)));
  const deltaSigma = B * sinSigma * (cos2SigmaM + (B / 4) * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM) - (B / 6) * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)));
  return (b * A * (sigma - deltaSigma)) / 1000;
}

const timestampOf = (value: ToolArgument) => numberArgument(value);

export const UTILITY_TOOLS: Record<string, ToolImplementation> = {
  get_current_timestamp: { typechecked: true, run: (world) => new PyFloat(world.clock.now) },
  timestamp_to_datetime_info: {
    typechecked: true,
    run(world, args) {
      validateTimestamp(args.timestamp as ToolArgument, "timestamp", "float");
      const value = fromTimestamp(timestampOf(args.timestamp as ToolArgument), world.clock.utcOffsetHours);
      return { year: value.year, month: value.month, day: value.day, hour: value.hour, minute: value.minute, second: value.second, isoweekday: isoWeekday(value) };
    },
  },
  datetime_info_to_timestamp: {
    typechecked: true,
    run(world, args) {
      const [year, month, day, hour, minute, second] = ["year", "month", "day", "hour", "minute", "second"].map((name) => numberArgument(args[name] as ToolArgument)) as [number, number, number, number, number, number];
      return new PyFloat(toTimestamp(makeDateTime(year, month, day, hour, minute, second), world.clock.utcOffsetHours));
    },
  },
  shift_timestamp: {
    typechecked: true,
    run(world, args) {
      validateTimestamp(args.timestamp as ToolArgument, "timestamp", "float");
      const start = fromTimestamp(timestampOf(args.timestamp as ToolArgument), world.clock.utcOffsetHours);
      const [weeks, days, hours, minutes, seconds] = ["weeks", "days", "hours", "minutes", "seconds"].map((name) => numberArgument(args[name] as ToolArgument)) as [number, number, number, number, number];
      const deltaSeconds = weeks * 604800 + days * 86400 + hours * 3600 + minutes * 60 + seconds;
      const shifted = fromTimestamp(toTimestamp(start, world.clock.utcOffsetHours) + deltaSeconds, world.clock.utcOffsetHours);
      return new PyFloat(toTimestamp(shifted, world.clock.utcOffsetHours));
    },
  },
  timestamp_diff: {
    typechecked: true,
    run(world, args) {
      validateTimestamp(args.timestamp_0 as ToolArgument, "timestamp_0", "float");
      validateTimestamp(args.timestamp_1 as ToolArgument, "timestamp_1", "float");
      const offset = world.clock.utcOffsetHours;
      const difference = localMicroseconds(fromTimestamp(timestampOf(args.timestamp_1 as ToolArgument), offset)) - localMicroseconds(fromTimestamp(timestampOf(args.timestamp_0 as ToolArgument), offset));
      return timedeltaParts(difference);
    },
  },
  seconds_to_hours_minutes_seconds: {
    typechecked: true,
    run(world, args) {
      const value = fromTimestamp(timestampOf(args.seconds as ToolArgument), world.clock.utcOffsetHours);
      return { hour: value.hour, minute: value.minute, second: value.second };
    },
  },
  unit_conversion: {
    typechecked: true,
    run(_world, args) {
      return new PyFloat(convertUnits(numberArgument(args.amount as ToolArgument), args.from_unit as string, args.to_unit as string));
    },
  },
  calculate_lat_lon_distance: {
    typechecked: true,
    run(_world, args) {
      validateCoordinate(args.latitude_0 as ToolArgument, "latitude_0", "float", "latitude");
      validateCoordinate(args.latitude_1 as ToolArgument, "latitude_1", "float", "latitude");
      validateCoordinate(args.longitude_0 as ToolArgument, "longitude_0", "float", "longitude");
      validateCoordinate(args.longitude_1 as ToolArgument, "longitude_1", "float", "longitude");
      const [lat0, lon0, lat1, lon1] = ["latitude_0", "longitude_0", "latitude_1", "longitude_1"].map((name) => numberArgument(args[name] as ToolArgument)) as [number, number, number, number];
      return new PyFloat(geodesicKilometres(lat0, lon0, lat1, lon1));
    },
  },
  search_holiday: {
    typechecked: true,
    run(world, args) {
      if (!getBooleanSetting(world, "wifi")) throw new PythonException("ConnectionError", "Wifi is not enabled");
      const year = args.year === null ? fromTimestamp(world.clock.now, world.clock.utcOffsetHours).year : numberArgument(args.year as ToolArgument);
      const query = defaultProcess(args.holiday_name as string);
      const matches = usHolidays(year).map((holiday) => ({ holiday, score: partialRatio(query, defaultProcess(holiday.name)) }));
      matches.sort((a, b) => b.score - a.score || b.holiday.month - a.holiday.month || b.holiday.day - a.holiday.day || (b.holiday.name < a.holiday.name ? -1 : b.holiday.name > a.holiday.name ? 1 : 0));
      const best = matches[0];
      if (best === undefined || !(best.score > 90)) return null;
      return new PyFloat(toTimestamp(makeDateTime(best.holiday.year, best.holiday.month, best.holiday.day), world.clock.utcOffsetHours));
    },
  },
};
