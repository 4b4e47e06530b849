/**
 * ToolSandbox's five RapidAPI tools (`tool_sandbox/tools/rapid_api_search_tools.py`) over deterministic offline
 * fixtures instead of the network: the same argument checks, state dependencies (wifi, location service) and result
 * shapes, with places, weather, stocks and exchange rates chosen to agree with the scenarios' milestones (Apple Park,
 * Grand Canyon, AAPL, USD→CNY). Weather for other places is a fixed function of the coordinates and the day.
 */
import { extractMatches } from "./fuzzy-match.js";
import { PyFloat, pythonRepr, type PyValue } from "./python-literal.js";
import { PythonException } from "./python-values.js";
import type { SandboxWorld } from "./sandbox-world.js";
import { validateCoordinate } from "./tools-reminder.js";
import { currentLocation, getBooleanSetting } from "./tools-setting.js";
import { isGiven, numberArgument, type ToolArgument, type ToolImplementation } from "./tool-runtime.js";

interface Place {
  name: string;
  full_address: string;
  phone_number: string | null;
  latitude: number;
  longitude: number;
  types: string[];
  website: string | null;
}

/** The fixture's places (the real maps API returns these fields and more). */
export const FIXTURE_PLACES: readonly Place[] = [
  { name: "Apple Park", full_address: "Apple Park, 1 Apple Park Way, Cupertino, CA 95014", phone_number: "+14089961010", latitude: 37.334606, longitude: -122.009102, types: ["Corporate office"], website: "https://www.apple.com" },
  { name: "Whole Foods Market", full_address: "Whole Foods Market, 20955 Stevens Creek Blvd, Cupertino, CA 95014", phone_number: "+14082577000", latitude: 37.323498, longitude: -122.039665, types: ["Grocery store"], website: "https://www.wholefoodsmarket.com" },
  { name: "Whole Foods Market", full_address: "Whole Foods Market, 777 S Mathilda Ave at McKinley Ave, Sunnyvale, CA 94087", phone_number: "+14084300300", latitude: 37.3738083, longitude: -122.03142249999999, types: ["Grocery store"], website: "https://www.wholefoodsmarket.com" },
  { name: "Grand Canyon National Park", full_address: "Grand Canyon National Park, Arizona", phone_number: "+19286387888", latitude: 36.23686, longitude: -112.19147, types: ["National park"], website: "https://www.nps.gov/grca" },
  { name: "Golden Gate Bridge", full_address: "Golden Gate Bridge, San Francisco, CA", phone_number: "+14159215858", latitude: 37.8199286, longitude: -122.4782551, types: ["Bridge"], website: "https://www.goldengate.org" },
  { name: "Apple Infinite Loop", full_address: "1 Infinite Loop, Cupertino, CA 95014", phone_number: "+14089961010", latitude: 37.3318, longitude: -122.0312, types: ["Corporate office"], website: "https://www.apple.com" },
  { name: "San Francisco International Airport", full_address: "San Francisco, CA 94128", phone_number: "+16508218211", latitude: 37.6213129, longitude: -122.3789554, types: ["International airport"], website: "https://www.flysfo.com" },
];

const ADDRESSES: readonly { latitude: number; longitude: number; address: string }[] = [
  { latitude: 37.334606, longitude: -122.009102, address: "Apple Park 1 Apple Park Way Cupertino, CA 95014 United States" },
  { latitude: 36.23686, longitude: -112.19147, address: "Grand Canyon National Park, Arizona, United States" },
  { latitude: 37.8199286, longitude: -122.4782551, address: "Golden Gate Bridge, San Francisco, CA, United States" },
];

const STOCKS: readonly { name: string; symbol: string; price: number; change: number; exchange: string }[] = [
  { name: "Apple Inc", symbol: "AAPL", price: 227.52, change: 1.74, exchange: "NASDAQ" },
  { name: "Microsoft Corp", symbol: "MSFT", price: 415.26, change: -2.11, exchange: "NASDAQ" },
  { name: "Alphabet Inc Class A", symbol: "GOOGL", price: 164.74, change: 0.92, exchange: "NASDAQ" },
  { name: "Amazon.com Inc", symbol: "AMZN", price: 186.51, change: 1.05, exchange: "NASDAQ" },
  { name: "NVIDIA Corp", symbol: "NVDA", price: 119.37, change: -0.85, exchange: "NASDAQ" },
  { name: "Tesla Inc", symbol: "TSLA", price: 248.5, change: 3.12, exchange: "NASDAQ" },
  { name: "Meta Platforms Inc", symbol: "META", price: 508.14, change: 2.2, exchange: "NASDAQ" },
];

/** Units of each currency per US dollar. */
const RATES_PER_USD: Readonly<Record<string, number>> = { USD: 1, CNY: 7.2, EUR: 0.92, GBP: 0.79, JPY: 149.5, CAD: 1.36, AUD: 1.52, CHF: 0.88, HKD: 7.8, INR: 83.2, KRW: 1330, MXN: 17.1, SGD: 1.34, SEK: 10.5, NZD: 1.64, BRL: 4.95, RUB: 92.0, TWD: 31.5 };

/** ISO 4217 codes `ccy` knows beyond the rate table (validation only). */
const OTHER_CODES = new Set(["AED", "ARS", "CLP", "COP", "CZK", "DKK", "EGP", "HUF", "IDR", "ILS", "MYR", "NOK", "PHP", "PLN", "SAR", "THB", "TRY", "VND", "ZAR"]);

function validateCurrency(code: string): void {
  if (RATES_PER_USD[code.toUpperCase()] === undefined && !OTHER_CODES.has(code.toUpperCase())) throw new PythonException("ValueError", `${code} is not a known 3 letter ISO 4217 currency code`);
}

/** `rapid_api_get_request`'s precondition: wifi on. */
function requireNetwork(world: SandboxWorld): void {
  if (!getBooleanSetting(world, "wifi")) throw new PythonException("ConnectionError", "Wifi is not enabled");
}

/** `maybe_get_current_lat_lon`. */
function latitudeLongitude(world: SandboxWorld, latitude: ToolArgument, longitude: ToolArgument): [number, number] {
  validateCoordinate(latitude, "latitude", "Optional[float]", "latitude");
  validateCoordinate(longitude, "longitude", "Optional[float]", "longitude");
  if ((latitude === null) !== (longitude === null)) throw new PythonException("ValueError", "Latitude and Longitude must be either both provided, or both not provided");
  if (latitude === null) {
    if (!getBooleanSetting(world, "location_service")) throw new PythonException("PermissionError", "Location service is not enabled.");
    const location = currentLocation(world);
    return [(location.latitude as PyFloat).value, (location.longitude as PyFloat).value];
  }
  return [numberArgument(latitude), numberArgument(longitude)];
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Deterministic weather: Grand Canyon and Cupertino fixed, anywhere else a smooth function of place and day. */
function weather(latitude: number, longitude: number, days: number): Record<string, PyValue> {
  const base = 28 - Math.abs(latitude) * 0.45 + Math.sin(longitude / 7) * 3 - days * 0.7;
  const current = round(base, 1);
  const minimum = round(base - 6.3, 1);
  const maximum = round(base + 5.2, 1);
  const place = ADDRESSES.find((entry) => Math.abs(entry.latitude - latitude) < 0.05 && Math.abs(entry.longitude - longitude) < 0.05);
  const f = (value: number) => new PyFloat(value);
  return {
    current_temperature: f(current),
    perceived_temperature: f(round(current - 0.8, 1)),
    max_temperature: f(maximum),
    min_temperature: f(minimum),
    average_temperature: f(round((minimum + maximum) / 2, 1)),
    visibility_distance: f(10.0),
    wind_speed: f(round(8 + Math.abs(Math.cos(latitude)) * 10, 1)),
    max_wind_speed: f(round(14 + Math.abs(Math.cos(latitude)) * 10, 1)),
    average_visibility_distance: f(10.0),
    barometric_pressure: f(1016.0),
    average_humidity: 48,
    sunrise: "06:58 AM",
    sunset: "04:52 PM",
    name: place?.address.split(",")[0] ?? "Unknown",
    region: "",
    country: "United States of America",
    lat: f(round(latitude, 2)),
    lon: f(round(longitude, 2)),
    temperature_unit: "Celsius",
    distance_unit: "Kilometer",
  };
}

export const RAPID_API_TOOLS: Record<string, ToolImplementation> = {
  search_lat_lon: {
    typechecked: true,
    run(world, args) {
      validateCoordinate(args.latitude as ToolArgument, "latitude", "float", "latitude");
      validateCoordinate(args.longitude as ToolArgument, "longitude", "float", "longitude");
      requireNetwork(world);
      const latitude = numberArgument(args.latitude as ToolArgument);
      const longitude = numberArgument(args.longitude as ToolArgument);
      const place = ADDRESSES.find((entry) => Math.abs(entry.latitude - latitude) < 0.05 && Math.abs(entry.longitude - longitude) < 0.05);
      return place?.address ?? null;
    },
  },
  search_location_around_lat_lon: {
    typechecked: true,
    run(world, args) {
      latitudeLongitude(world, args.latitude as ToolArgument, args.longitude as ToolArgument);
      requireNetwork(world);
      const matches = extractMatches(args.location as string, FIXTURE_PLACES.map((place) => place.name), 60, 4);
      return matches.map((index) => {
        const place = FIXTURE_PLACES[index] as Place;
        return { name: place.name, full_address: place.full_address, phone_number: place.phone_number, latitude: new PyFloat(place.latitude), longitude: new PyFloat(place.longitude), types: place.types, website: place.website };
      });
    },
  },
  search_weather_around_lat_lon: {
    typechecked: true,
    run(world, args) {
      validateCoordinate(args.latitude as ToolArgument, "latitude", "Optional[float]", "latitude");
      validateCoordinate(args.longitude as ToolArgument, "longitude", "Optional[float]", "longitude");
      const [latitude, longitude] = latitudeLongitude(world, args.latitude as ToolArgument, args.longitude as ToolArgument);
      const days = args.days as ToolArgument;
      if (typeof days !== "number" || days < 0) throw new PythonException("ValueError", `Days must be positive integer, found days=${isGiven(days) ? pythonRepr(days) : "NOT_GIVEN"}.`);
      requireNetwork(world);
      if (days > 13) return null;
      return weather(latitude, longitude, days);
    },
  },
  search_stock: {
    typechecked: true,
    run(world, args) {
      requireNetwork(world);
      const matches = extractMatches(args.query as string, STOCKS.map((stock) => `${stock.name} ${stock.symbol}`), 60, 1);
      const stock = matches.length > 0 ? STOCKS[matches[0] as number] : undefined;
      if (stock === undefined) return null;
      return { symbol: stock.symbol, name: stock.name, type: "stock", price: new PyFloat(stock.price), change: new PyFloat(stock.change), change_percent: new PyFloat(round((stock.change / (stock.price - stock.change)) * 100, 4)), previous_close: new PyFloat(round(stock.price - stock.change, 2)), exchange: stock.exchange };
    },
  },
  convert_currency: {
    typechecked: true,
    run(world, args) {
      const from = args.from_currency_code as string;
      const to = args.to_currency_code as string;
      validateCurrency(from);
      validateCurrency(to);
      requireNetwork(world);
      const fromRate = RATES_PER_USD[from.toUpperCase()];
      const toRate = RATES_PER_USD[to.toUpperCase()];
      if (fromRate === undefined || toRate === undefined) throw new PythonException("RuntimeError", "Conversion failed");
      return new PyFloat(round((numberArgument(args.amount as ToolArgument) / fromRate) * toRate, 2));
    },
  },
};
