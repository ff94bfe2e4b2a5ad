/**
 * The time stamps of runs and events: `Date.prototype.toISOString`'s format,
 * written out in JS. V8 formats a date through its time-zone cache, even in
 * UTC, and the first use of that cache has ICU read the host's zone
 * (`/etc/localtime`) and its zone data: about 1 MB of a fresh process that
 * needs no local time.
 *
 * @module
 */

let lastMs = NaN;
let lastIso = "";

/** The ISO time of now; built once per millisecond (several events share one). */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = isoTime(ms);
  }
  return lastIso;
}

const DAY_MS = 86_400_000;
/** 9999-12-31T23:59:59.999Z: later (and earlier than 1970) is left to `toISOString`. */
const LAST_FOUR_DIGIT_MS = 253_402_300_799_999;

/**
 * `new Date(ms).toISOString()`, for `ms` in 1970 to 9999 without touching the
 * time-zone cache (outside that range, by `toISOString` itself).
 *
 * @example
 * ```ts
 * import { isoTime } from "./iso_now.ts";
 * console.log(isoTime(951_782_400_000)); // "2000-02-29T00:00:00.000Z"
 * ```
 */
export function isoTime(ms: number): string {
  if (!(ms >= 0 && ms <= LAST_FOUR_DIGIT_MS)) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  const { year, month, day } = civilDate(days);
  let rest = Math.floor(ms - days * DAY_MS);
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = Math.floor(rest / 1000);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}.${
    pad(rest - s * 1000, 3)
  }Z`;
}

/** The proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's civil_from_days). */
function civilDate(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468; // days since 0000-03-01
  const era = Math.floor(z / 146_097); // 400-year eras
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153); // months since March
  const month = mp < 10 ? mp + 3 : mp - 9;
  return {
    year: yoe + era * 400 + (month <= 2 ? 1 : 0),
    month,
    day: doy - Math.floor((153 * mp + 2) / 5) + 1,
  };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}
