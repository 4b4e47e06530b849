/** The US federal holidays of a year as the Python `holidays` package (0.109) lists them, observed days included. */

/** A holiday: its date (year, month, day) and name. */
export interface Holiday {
  year: number;
  month: number;
  day: number;
  name: string;
}

function weekday(year: number, month: number, day: number): number {
  return new Date(Date.UTC(year, month - 1, day)).getUTCDay();
}

function nthWeekday(year: number, month: number, dayOfWeek: number, nth: number): number {
  const first = weekday(year, month, 1);
  return 1 + ((dayOfWeek - first + 7) % 7) + 7 * (nth - 1);
}

function lastWeekday(year: number, month: number, dayOfWeek: number): number {
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return last - ((weekday(year, month, last) - dayOfWeek + 7) % 7);
}

function shifted(year: number, month: number, day: number, delta: number): Holiday & { name: "" } {
  const date = new Date(Date.UTC(year, month - 1, day + delta));
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), name: "" };
}

/** `holidays.country_holidays("US", years=year)`, sorted by date. */
export function usHolidays(year: number): Holiday[] {
  const out: Holiday[] = [];
  const fixed = (month: number, day: number, name: string) => {
    out.push({ year, month, day, name });
    const dayOfWeek = weekday(year, month, day);
    if (dayOfWeek === 6) out.push({ ...shifted(year, month, day, -1), name: `${name} (observed)` });
    if (dayOfWeek === 0) out.push({ ...shifted(year, month, day, 1), name: `${name} (observed)` });
  };
  fixed(1, 1, "New Year's Day");
  if (year >= 1986) out.push({ year, month: 1, day: nthWeekday(year, 1, 1, 3), name: "Martin Luther King Jr. Day" });
  out.push({ year, month: 2, day: nthWeekday(year, 2, 1, 3), name: "Washington's Birthday" });
  out.push({ year, month: 5, day: lastWeekday(year, 5, 1), name: "Memorial Day" });
  if (year >= 2021) fixed(6, 19, "Juneteenth National Independence Day");
  fixed(7, 4, "Independence Day");
  out.push({ year, month: 9, day: nthWeekday(year, 9, 1, 1), name: "Labor Day" });
  out.push({ year, month: 10, day: nthWeekday(year, 10, 1, 2), name: "Columbus Day" });
  fixed(11, 11, "Veterans Day");
  out.push({ year, month: 11, day: nthWeekday(year, 11, 4, 4), name: "Thanksgiving Day" });
  fixed(12, 25, "Christmas Day");
  if (weekday(year + 1, 1, 1) === 6) out.push({ year, month: 12, day: 31, name: "New Year's Day (observed)" });
  return out.filter((holiday) => holiday.year === year).sort((a, b) => a.month - b.month || a.day - b.day);
}
