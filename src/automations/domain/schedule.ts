/**
 * Automation schedules: the four written forms, their normalized form, a human description, and the
 * occurrence times they give. Pure: every function takes the time it reasons about.
 */
import { CronExpressionParser } from "cron-parser";
import cronstrue from "cronstrue";

export type Schedule =
  /** One occurrence at `at` (ms), from an ISO timestamp or a duration counted from when it was given. */
  | { kind: "once"; at: number }
  /** Occurrences at `anchor + k * everyMs` (k ≥ 1): the grid keeps its phase across pauses. */
  | { kind: "interval"; everyMs: number; anchor: number }
  /** A five-field cron expression read in an IANA time zone (default UTC). */
  | { kind: "cron"; expression: string; timezone: string };

const MINUTE = 60_000;
const UNIT_MS = { w: 7 * 1_440 * MINUTE, d: 1_440 * MINUTE, h: 60 * MINUTE, m: MINUTE, s: 1_000 } as const;
const UNIT_WORDS = { w: "week", d: "day", h: "hour", m: "minute", s: "second" } as const;
type Unit = keyof typeof UNIT_MS;

/** The shortest interval between occurrences of a recurring schedule: a cron expression's own granularity. */
export const MIN_INTERVAL_MS = MINUTE;
/** The longest interval or duration, and how far ahead a one-time timestamp may be. */
export const MAX_INTERVAL_MS = 365 * UNIT_MS.d;
export const MAX_AHEAD_MS = 10 * 366 * UNIT_MS.d;

const FORMS = "an ISO timestamp (2026-12-01T09:00:00Z), a duration (30m, 2h, 1d), an interval (every 2h) or a five-field cron expression (0 9 * * *)";

export class ScheduleError extends Error {}

const DURATION = /^(?:\d{1,6}[wdhms]\s*)+$/;
// Up to nanoseconds, as many writers give them (Python's `isoformat()` gives microseconds); kept to the ms.
const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?$/;

/** `1h30m` → 5,400,000; units may repeat or come in any order; null when the text is not a duration. */
function durationMs(text: string): number | null {
  if (!DURATION.test(text)) return null;
  let total = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)([wdhms])/g)) total += Number(n) * UNIT_MS[unit as Unit];
  return total;
}

/** The duration in its canonical form: largest units first, none repeated (`90m` → `1h30m`). */
export function formatDuration(ms: number): string {
  let rest = ms;
  let out = "";
  for (const unit of Object.keys(UNIT_MS) as Unit[]) {
    const n = Math.floor(rest / UNIT_MS[unit]);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * UNIT_MS[unit];
  }
  return out;
}

function durationWords(ms: number): string {
  const parts = formatDuration(ms).match(/\d+[wdhms]/g) ?? [];
  return parts
    .map((p) => {
      const n = Number(p.slice(0, -1));
      const word = UNIT_WORDS[p.at(-1) as Unit];
      return n === 1 ? `1 ${word}` : `${n} ${word}s`;
    })
    .join(" ");
}

/** A timestamp whose calendar fields are real (no 30 February), read as UTC when it names no offset. */
function isoMs(text: string): number | null {
  const m = ISO.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s = "0", frac = "0", zone = "Z"] = m;
  const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(frac.slice(0, 3).padEnd(3, "0")));
  const back = new Date(local);
  const fieldsHold =
    back.getUTCFullYear() === Number(y) &&
    back.getUTCMonth() === Number(mo) - 1 &&
    back.getUTCDate() === Number(d) &&
    back.getUTCHours() === Number(h) &&
    back.getUTCMinutes() === Number(mi) &&
    back.getUTCSeconds() === Number(s);
  if (!fieldsHold) return null;
  if (zone === "Z") return local;
  const sign = zone.startsWith("-") ? -1 : 1;
  const [oh, om] = zone.slice(1).split(":").map(Number) as [number, number];
  if (oh > 23 || om > 59) return null;
  return local - sign * (oh * 60 + om) * MINUTE;
}

/** The IANA zone's canonical name (`europe/paris` → `Europe/Paris`); throws when there is no such zone. */
export function canonicalTimezone(name: string): string {
  const problem = "timezone: must be an IANA time zone name (e.g. Europe/Paris)";
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) throw new ScheduleError(problem);
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw new ScheduleError(problem);
  }
}

/** A cron expression's fields, in order, with what each takes. */
const CRON_FIELDS = [
  ["minute", "0-59"],
  ["hour", "0-23"],
  ["day-of-month", "1-31"],
  ["month", "1-12 or JAN-DEC"],
  ["day-of-week", "0-7 or SUN-SAT"],
] as const;

const cronFires = (expression: string, timezone: string): boolean => {
  try {
    CronExpressionParser.parse(expression, { tz: timezone, currentDate: new Date(0) }).next();
    return true;
  } catch {
    return false;
  }
};

/**
 * Refused with the field at fault, found by reading each field alone, since cron-parser's own messages
 * quote the value, which a validation message must not echo.
 */
function cronSchedule(expression: string, timezone: string): Schedule {
  if (cronFires(expression, timezone)) return { kind: "cron", expression, timezone };
  const fields = expression.split(" ");
  const at = fields.findIndex((field, i) => !cronFires(fields.map((_, j) => (j === i ? field : "*")).join(" "), timezone));
  if (at < 0) throw new ScheduleError("schedule: the cron expression matches no date (such as the 30th of February)");
  const [name, values] = CRON_FIELDS[at]!;
  throw new ScheduleError(`schedule: the cron expression's ${name} field must be *, values in ${values}, ranges (a-b), steps (*/n, a-b/n) or a list of them`);
}

/** Whether the text is written as a cron expression (five fields), the one form a time zone applies to. */
export function isCronText(written: string): boolean {
  const text = written.trim().replace(/\s+/g, " ");
  return text.split(" ").length === 5 && !/^every /i.test(text);
}

/**
 * Reads a schedule as written; `now` (ms) starts a duration and is the moment a one-time timestamp must
 * follow. `timezone` (IANA) applies to cron expressions only: the other forms are absolute instants.
 */
export function parseSchedule(written: string, timezone: string | null, now: number): Schedule {
  const text = written.trim().replace(/\s+/g, " ");
  const zone = timezone === null ? "UTC" : canonicalTimezone(timezone);
  if (isCronText(text)) return cronSchedule(text, zone);
  if (zone !== "UTC")
    throw new ScheduleError("timezone: applies to cron expressions only; timestamps, durations and intervals are absolute (write a timestamp's offset in it)");
  const lower = text.toLowerCase();
  if (lower.startsWith("every ")) {
    const every = durationMs(lower.slice(6).replace(/ /g, ""));
    if (every === null) throw new ScheduleError(`schedule: an interval must be "every" and a duration such as 2h or 1h30m`);
    if (every < MIN_INTERVAL_MS) throw new ScheduleError(`schedule: the interval must be at least ${formatDuration(MIN_INTERVAL_MS)}`);
    if (every > MAX_INTERVAL_MS) throw new ScheduleError(`schedule: the interval is longer than the maximum of ${formatDuration(MAX_INTERVAL_MS)}`);
    return { kind: "interval", everyMs: every, anchor: now };
  }
  const after = durationMs(lower.replace(/ /g, ""));
  if (after !== null) {
    if (after === 0) throw new ScheduleError("schedule: a duration must be longer than zero");
    if (after > MAX_INTERVAL_MS) throw new ScheduleError(`schedule: the duration is longer than the maximum of ${formatDuration(MAX_INTERVAL_MS)}`);
    return { kind: "once", at: now + after };
  }
  const at = isoMs(text.toUpperCase());
  if (at === null) throw new ScheduleError(`schedule: must be ${FORMS}`);
  if (at <= now) throw new ScheduleError("schedule: the time must be in the future");
  if (at - now > MAX_AHEAD_MS) throw new ScheduleError("schedule: the time is more than 10 years ahead");
  return { kind: "once", at };
}

/** The normalized `schedule` a response shows: a UTC timestamp, `every <duration>`, or the cron expression with single spaces. */
export function normalizedSchedule(s: Schedule): string {
  if (s.kind === "once") return new Date(s.at).toISOString();
  if (s.kind === "interval") return `every ${formatDuration(s.everyMs)}`;
  return s.expression;
}

const minuteText = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");

/** `scheduleDisplay`: "once at 2026-12-01 09:00 UTC", "every 2 hours", "At 09:00, every day (Europe/Paris)". */
export function describeSchedule(s: Schedule): string {
  if (s.kind === "once") return `once at ${minuteText(s.at)} UTC`;
  if (s.kind === "interval") return `every ${durationWords(s.everyMs)}`;
  try {
    return `${cronstrue.toString(s.expression, { use24HourTimeFormat: true, verbose: true })} (${s.timezone})`;
  } catch {
    // An expression cron-parser reads and the describer does not: shown as written.
    return `cron ${s.expression} (${s.timezone})`;
  }
}

/** The first occurrence strictly after `after` (ms); null when the schedule has none left. */
export function occurrenceAfter(s: Schedule, after: number): number | null {
  if (s.kind === "once") return s.at > after ? s.at : null;
  if (s.kind === "interval") return s.anchor + (Math.floor((after - s.anchor) / s.everyMs) + 1) * s.everyMs;
  const expression = CronExpressionParser.parse(s.expression, { tz: s.timezone, currentDate: new Date(after) });
  if (!expression.hasNext()) return null;
  const next = expression.next().getTime();
  return next > after ? next : null;
}
