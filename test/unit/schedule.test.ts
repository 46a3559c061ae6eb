import { expect } from "chai";
import { applyChange, exhausted, nextAfterOccurrence, nextFrom, stateOf, type AutomationFacts } from "../../src/automations/domain/automations.js";
import { describeSchedule, normalizedSchedule, occurrenceAfter, parseSchedule, ScheduleError, type Schedule } from "../../src/automations/domain/schedule.js";

const NOW = Date.parse("2026-11-22T10:15:00Z");
const MIN = 60_000;
const H = 60 * MIN;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function problem(text: string, tz: string | null = null): string {
  try {
    parseSchedule(text, tz, NOW);
  } catch (err) {
    expect(err).to.be.instanceOf(ScheduleError);
    return (err as Error).message;
  }
  throw new Error(`${text} was accepted`);
}

describe("schedules (pure)", () => {
  it("reads the four forms, normalizes and describes them", () => {
    const cases: [string, string, string, string | null][] = [
      ["2026-12-01T09:00:00Z", "2026-12-01T09:00:00.000Z", "once at 2026-12-01 09:00 UTC", "2026-12-01T09:00:00.000Z"],
      ["2026-12-01T10:00+01:00", "2026-12-01T09:00:00.000Z", "once at 2026-12-01 09:00 UTC", "2026-12-01T09:00:00.000Z"],
      ["2026-12-01T09:00", "2026-12-01T09:00:00.000Z", "once at 2026-12-01 09:00 UTC", "2026-12-01T09:00:00.000Z"],
      ["30m", "2026-11-22T10:45:00.000Z", "once at 2026-11-22 10:45 UTC", "2026-11-22T10:45:00.000Z"],
      ["1d", "2026-11-23T10:15:00.000Z", "once at 2026-11-23 10:15 UTC", "2026-11-23T10:15:00.000Z"],
      ["every 2h", "every 2h", "every 2 hours", "2026-11-22T12:15:00.000Z"],
      ["Every 90m", "every 1h30m", "every 1 hour 30 minutes", "2026-11-22T11:45:00.000Z"],
      ["every 1w", "every 1w", "every 1 week", "2026-11-29T10:15:00.000Z"],
      ["0  9 * *  *", "0 9 * * *", "At 09:00, every day (UTC)", "2026-11-23T09:00:00.000Z"],
      ["*/15 9-17 * * 1-5", "*/15 9-17 * * 1-5", "Every 15 minutes, between 09:00 and 17:59, Monday through Friday (UTC)", "2026-11-23T09:00:00.000Z"],
    ];
    for (const [written, normalized, display, first] of cases) {
      const s = parseSchedule(written, null, NOW);
      expect([normalizedSchedule(s), describeSchedule(s)], written).to.deep.equal([normalized, display]);
      const next = s.kind === "once" ? s.at : occurrenceAfter(s, NOW);
      expect(iso(next), written).to.equal(first);
    }
  });

  it("names the problem of every bad schedule", () => {
    expect(problem("banana")).to.match(/^schedule: must be an ISO timestamp .* or a five-field cron expression/);
    expect(problem("every 30s")).to.equal("schedule: the interval must be at least 1m");
    expect(problem("every 0m")).to.equal("schedule: the interval must be at least 1m");
    expect(problem("every 400d")).to.equal("schedule: the interval is longer than the maximum of 52w1d");
    expect(problem("every soon")).to.match(/^schedule: an interval must be "every" and a duration/);
    expect(problem("0m")).to.equal("schedule: a duration must be longer than zero");
    expect(problem("2026-11-22T10:00:00Z")).to.equal("schedule: the time must be in the future");
    expect(problem("2026-02-30T10:00:00Z")).to.match(/^schedule: must be/);
    expect(problem("2040-01-01T00:00:00Z")).to.equal("schedule: the time is more than 10 years ahead");
    expect(problem("61 * * * *")).to.equal(
      "schedule: the cron expression's minute field must be *, values in 0-59, ranges (a-b), steps (*/n, a-b/n) or a list of them",
    );
    expect(problem("*/0 * * * *")).to.match(/^schedule: the cron expression's minute field must be/);
    expect(problem("0 25 * * *")).to.match(/^schedule: the cron expression's hour field must be \*, values in 0-23,/);
    expect(problem("0 9 0 * *")).to.match(/^schedule: the cron expression's day-of-month field must be \*, values in 1-31,/);
    expect(problem("0 9 * JAN-FOO *")).to.match(/^schedule: the cron expression's month field must be \*, values in 1-12 or JAN-DEC,/);
    expect(problem("0 9 * * 8")).to.match(/^schedule: the cron expression's day-of-week field must be \*, values in 0-7 or SUN-SAT,/);
    expect(problem("0 9 31 2 *")).to.equal("schedule: the cron expression matches no date (such as the 30th of February)");
    expect(problem("0 0 9 * * *")).to.match(/^schedule: must be/);
    expect(problem("every 2h", "Europe/Paris")).to.match(/^timezone: applies to cron expressions only/);
    expect(problem("0 9 * * *", "Mars/Olympus")).to.equal("timezone: must be an IANA time zone name (e.g. Europe/Paris)");
    expect(problem("0 9 * * *", "+01:00")).to.equal("timezone: must be an IANA time zone name (e.g. Europe/Paris)");
  });

  it("never echoes the value it refuses", () => {
    // [schedule, time zone, what of them the message must not contain]
    const bad: [string, string | null, string][] = [
      ["every s3cr3t", null, "s3cr3t"],
      ["every 7s", null, "7s"],
      ["2026-11-22T10:07:33Z", null, "10:07"],
      ["0 9 * * 19", null, "19"],
      ["13 9 * FEBX *", null, "FEBX"],
      ["13 9 * * *", "Secret/Token123", "Token123"],
      ["13 9 * * *", "Tok+en", "Tok+en"],
    ];
    for (const [text, tz, secret] of bad) expect(problem(text, tz), `${text} ${tz}`).not.to.include(secret);
  });

  it("reads timestamps with up to nine fractional digits, to the millisecond", () => {
    expect(normalizedSchedule(parseSchedule("2026-12-01T09:00:00.123456Z", null, NOW))).to.equal("2026-12-01T09:00:00.123Z");
    expect(normalizedSchedule(parseSchedule("2026-12-01T10:00:00.987654321+01:00", null, NOW))).to.equal("2026-12-01T09:00:00.987Z");
    expect(problem("2026-12-01T09:00:00.1234567890Z")).to.match(/^schedule: must be/);
  });

  it("reads a cron expression in its time zone, across daylight-saving changes", () => {
    const paris = parseSchedule("0 9 * * *", "europe/paris", NOW) as Extract<Schedule, { kind: "cron" }>;
    expect(paris.timezone).to.equal("Europe/Paris");
    expect(describeSchedule(paris)).to.equal("At 09:00, every day (Europe/Paris)");
    // Spring forward on 29 March 2026: 09:00 in Paris moves from 08:00 to 07:00 UTC.
    expect(iso(occurrenceAfter(paris, Date.parse("2026-03-27T12:00:00Z")))).to.equal("2026-03-28T08:00:00.000Z");
    expect(iso(occurrenceAfter(paris, Date.parse("2026-03-28T08:00:00Z")))).to.equal("2026-03-29T07:00:00.000Z");
    // Fall back on 25 October 2026: back to 08:00 UTC.
    expect(iso(occurrenceAfter(paris, Date.parse("2026-10-24T12:00:00Z")))).to.equal("2026-10-25T08:00:00.000Z");
    // 02:30 does not exist in New York on 8 March 2026: that day's run is at 03:30 EDT.
    const ny = parseSchedule("30 2 * * *", "America/New_York", NOW);
    expect(iso(occurrenceAfter(ny, Date.parse("2026-03-07T12:00:00Z")))).to.equal("2026-03-08T07:30:00.000Z");
    expect(iso(occurrenceAfter(ny, Date.parse("2026-03-08T07:30:00Z")))).to.equal("2026-03-09T06:30:00.000Z");
  });

  it("keeps an interval on its grid; an occurrence is strictly after the time given", () => {
    const s = parseSchedule("every 2h", null, NOW);
    expect(iso(occurrenceAfter(s, NOW + 2 * H))).to.equal(iso(NOW + 4 * H));
    expect(iso(occurrenceAfter(s, NOW + 5 * H))).to.equal(iso(NOW + 6 * H));
    const once = parseSchedule("30m", null, NOW);
    expect(occurrenceAfter(once, NOW + 30 * MIN)).to.equal(null);
  });
});

describe("automation rules (pure)", () => {
  const facts = (over: Partial<AutomationFacts> = {}): AutomationFacts => ({
    schedule: parseSchedule("every 1h", null, NOW),
    repeat: null,
    enabled: true,
    paused: false,
    completedOccurrences: 0,
    lastOccurrenceAt: null,
    nextRunAt: new Date(NOW + H),
    ...over,
  });

  it("derives the state: completed, then disabled, then paused, then active", () => {
    expect(stateOf(facts())).to.equal("active");
    expect(stateOf(facts({ paused: true }))).to.equal("paused");
    expect(stateOf(facts({ paused: true, enabled: false }))).to.equal("disabled");
    expect(stateOf(facts({ repeat: 2, completedOccurrences: 2, enabled: false }))).to.equal("completed");
    const once = parseSchedule("30m", null, NOW) as Extract<Schedule, { kind: "once" }>;
    expect(exhausted(facts({ schedule: once, lastOccurrenceAt: new Date(once.at) }))).to.equal(true);
  });

  it("resumes on the next eligible occurrence from now, with no burst of missed ones", () => {
    const paused = applyChange(facts(), { paused: true }, NOW);
    expect(paused.nextRunAt).to.equal(null);
    const resumed = applyChange(paused, { paused: false }, NOW + 5 * H + 10 * MIN);
    expect(iso(resumed.nextRunAt!.getTime())).to.equal(iso(NOW + 6 * H));
    // A late occurrence: the next one after now, not after the late one.
    expect(iso(nextAfterOccurrence(facts(), new Date(NOW + H), NOW + 3 * H + MIN)!.getTime())).to.equal(iso(NOW + 4 * H));
  });

  it("keeps the next run time on a change that leaves the schedule; a new schedule, or raising repeat, computes it from now", () => {
    const a = facts({ nextRunAt: new Date(NOW + 30 * MIN) });
    expect(applyChange(a, {}, NOW + MIN).nextRunAt).to.deep.equal(a.nextRunAt);
    expect(iso(applyChange(a, { schedule: parseSchedule("every 3h", null, NOW) }, NOW + MIN).nextRunAt!.getTime())).to.equal(iso(NOW + 3 * H));
    const done = facts({ repeat: 1, completedOccurrences: 1, nextRunAt: null });
    expect(stateOf(done)).to.equal("completed");
    const more = applyChange(done, { repeat: null }, NOW + 10 * MIN);
    expect([stateOf(more), iso(more.nextRunAt!.getTime())]).to.deep.equal(["active", iso(NOW + H)]);
  });

  it("a one-time occurrence not yet run stays due at its time when resumed after it", () => {
    const once = parseSchedule("30m", null, NOW) as Extract<Schedule, { kind: "once" }>;
    expect(nextFrom(facts({ schedule: once }), NOW + 2 * H)!.getTime()).to.equal(once.at);
  });
});
