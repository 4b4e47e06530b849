/**
 * Python's naive `datetime` arithmetic under a fixed local UTC offset: `datetime.fromtimestamp`, `.timestamp()`,
 * `timedelta` differences; what ToolSandbox's time tools compute with the process's time zone.
 */
import { PythonException } from "./python-values.js";

/** A naive local date-time with microseconds. */
export interface LocalDateTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  microsecond: number;
}

function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const fraction = value - floor;
  if (fraction > 0.5) return floor + 1;
  if (fraction < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** `datetime.fromtimestamp(timestamp)` in local time. */
export function fromTimestamp(timestamp: number, utcOffsetHours: number): LocalDateTime {
  const totalMicroseconds = roundHalfEven((timestamp + utcOffsetHours * 3600) * 1e6);
  const seconds = Math.floor(totalMicroseconds / 1e6);
  const microsecond = totalMicroseconds - seconds * 1e6;
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) throw new PythonException("ValueError", "year is out of range");
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour: date.getUTCHours(), minute: date.getUTCMinutes(), second: date.getUTCSeconds(), microsecond };
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** `datetime(year, …)`: Python's range checks and messages. */
export function makeDateTime(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, microsecond = 0): LocalDateTime {
  if (year < 1 || year > 9999) throw new PythonException("ValueError", `year ${year} is out of range`);
  if (month < 1 || month > 12) throw new PythonException("ValueError", "month must be in 1..12");
  if (day < 1 || day > daysInMonth(year, month)) throw new PythonException("ValueError", "day is out of range for month");
  if (hour < 0 || hour > 23) throw new PythonException("ValueError", "hour must be in 0..23");
  if (minute < 0 || minute > 59) throw new PythonException("ValueError", "minute must be in 0..59");
  if (second < 0 || second > 59) throw new PythonException("ValueError", "second must be in 0..59");
  return { year, month, day, hour, minute, second, microsecond };
}

function epochSeconds(value: LocalDateTime): number {
  const date = new Date(Date.UTC(2000, 0, 1, value.hour, value.minute, value.second));
  date.setUTCFullYear(value.year, value.month - 1, value.day);
  return date.getTime() / 1000;
}

/** `naive.timestamp()` with the local offset. */
export function toTimestamp(value: LocalDateTime, utcOffsetHours: number): number {
  return epochSeconds(value) - utcOffsetHours * 3600 + value.microsecond / 1e6;
}

/** Microseconds of a naive local date-time since the epoch (for exact differences). */
export function localMicroseconds(value: LocalDateTime): number {
  return epochSeconds(value) * 1e6 + value.microsecond;
}

/** `(later - earlier)` as a `timedelta`'s (days, seconds). */
export function timedeltaParts(microseconds: number): { days: number; seconds: number } {
  const totalSeconds = Math.floor(microseconds / 1e6);
  const days = Math.floor(totalSeconds / 86400);
  return { days, seconds: totalSeconds - days * 86400 };
}

/** ISO weekday (Monday 1 … Sunday 7). */
export function isoWeekday(value: LocalDateTime): number {
  const day = new Date(Date.UTC(value.year, value.month - 1, value.day)).getUTCDay();
  return day === 0 ? 7 : day;
}
