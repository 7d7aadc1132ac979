import { checkSchedules, scheduleExpressionProblem, scheduleExecutionInput } from './schedules.js';

describe('schedule expressions, as EventBridge Scheduler reads them', () => {
  test.each([
    'cron(0 3 * * ? *)',
    'cron(15 10 ? * MON-FRI *)',
    'cron(0/15 * * * ? *)',
    'cron(0 8 1 JAN,JUL ? 2027)',
    'cron(0 18 ? * 6L *)',
    'cron(0 9 ? * MON#1 *)',
    'cron(0 0 L * ? *)',
    'cron(0 0 15W * ? *)',
    'rate(1 hour)',
    'rate(6 hours)',
    'rate(1 day)',
    'rate(30 minutes)',
  ])('%s is one', (expression) => {
    expect(scheduleExpressionProblem(expression)).toBeUndefined();
  });

  test.each([
    ['cron(0 3 * * *)', /has 5 fields; EventBridge Scheduler's cron has six/],
    ['cron(0 3 * * * *)', /one of day-of-month and day-of-week must be "\?"/],
    ['cron(0 3 ? * ? *)', /one of day-of-month and day-of-week must be "\?"/],
    ['cron(60 3 * * ? *)', /minutes "60" is not 0-59/],
    ['cron(0 24 * * ? *)', /hours "24" is not 0-23/],
    ['cron(0 3 * 13 ? *)', /month "13" is not 1-12 or JAN-DEC/],
    ['cron(0 3 ? * FUNDAY *)', /day-of-week "FUNDAY"/],
    ['cron(0 3 * * ? 1969)', /year "1969" is not 1970-2199/],
    ['cron(0/0 3 * * ? *)', /minutes "0\/0"/],
    ['rate(0 minutes)', /the value must be 1 or more/],
    ['rate(1 hours)', /write rate\(1 hour\)/],
    ['rate(5 minute)', /write rate\(5 minutes\)/],
    ['rate(2 weeks)', /a whole value and minute\(s\), hour\(s\) or day\(s\)/],
    ['at(2027-01-01T00:00:00)', /at\(\.\.\.\) runs once/],
    ['0 3 * * *', /is neither cron\(/],
  ])('%s is refused', (expression, message) => {
    expect(scheduleExpressionProblem(expression)).toMatch(message);
  });
});

describe('the schedules file', () => {
  const nightly = { schedule: 'cron(0 3 * * ? *)', timezone: 'Europe/Paris', repository: 'acme/site', ref: 'refs/heads/main', inputs: { target: 'staging', retries: 3 } };

  it('reads each schedule, with its defaults', () => {
    expect(checkSchedules({ nightly, hourly: { schedule: 'rate(1 hour)', repository: 'acme/site', ref: 'refs/tags/v1', enabled: false } })).toEqual({
      ok: true,
      value: [
        { name: 'nightly', expression: 'cron(0 3 * * ? *)', timezone: 'Europe/Paris', repository: 'acme/site', ref: 'refs/heads/main', inputs: { target: 'staging', retries: '3' }, enabled: true },
        { name: 'hourly', expression: 'rate(1 hour)', timezone: 'UTC', repository: 'acme/site', ref: 'refs/tags/v1', inputs: {}, enabled: false },
      ],
    });
  });

  it('has none when the file is empty', () => {
    expect(checkSchedules(null)).toEqual({ ok: true, value: [] });
  });

  test.each([
    [{ nightly: { ...nightly, schedule: 'cron(0 3 * * *)' } }, 'schedule "nightly": schedule: cron(0 3 * * *): has 5 fields'],
    [{ nightly: { ...nightly, timezone: 'Europe/Pariss' } }, 'schedule "nightly": timezone: "Europe/Pariss" is not an IANA time zone (such as UTC or Europe/Paris)'],
    [{ nightly: { ...nightly, timezone: 'CEST+2' } }, 'schedule "nightly": timezone: "CEST+2" is not an IANA time zone'],
    [{ nightly: { ...nightly, repository: 'site' } }, 'schedule "nightly": repository: must be a GitHub repository as owner/name, not "site"'],
    [{ nightly: { ...nightly, ref: 'main' } }, 'schedule "nightly": ref: must be a branch or tag ref such as refs/heads/main, not "main"'],
    [{ nightly: { ...nightly, inputs: { '1st': 'x' } } }, 'schedule "nightly": inputs: "1st" is not a valid input name'],
    [{ nightly: { ...nightly, inputs: { note: null } } }, 'schedule "nightly": inputs: note: must be text, not an empty value'],
    [{ nightly: { ...nightly, cron: 'x' } }, 'schedule "nightly": cron: unknown field (expected one of: schedule, timezone, repository, ref, inputs, enabled)'],
    [{ Nightly: nightly }, 'schedule "Nightly": the name must be 1 to 40 lower-case letters'],
    [{ nightly: 'cron(0 3 * * ? *)' }, 'schedule "nightly": must be a map with schedule, timezone, repository, ref and inputs'],
    [['nightly'], 'must be a map of schedule names to schedules'],
  ])('refuses %j, naming the schedule', (declared, message) => {
    const checked = checkSchedules(declared);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? [] : checked.problems[0]).toContain(message);
  });
});

describe("a schedule's execution input", () => {
  it('is the build a webhook would start for event schedule, its commit, id and pipeline left to PrepareBuild', () => {
    const checked = checkSchedules({ nightly: { schedule: 'rate(1 day)', repository: 'acme/site', ref: 'refs/heads/main', inputs: { target: 'staging' } } });
    if (!checked.ok) throw new Error(checked.problems.join('; '));
    expect(scheduleExecutionInput(checked.value[0]!)).toEqual({
      build: { trigger: 'github schedule', repository: 'acme/site', ref: 'refs/heads/main', event: 'schedule', inputs: { target: 'staging' } },
      source: { url: 'https://github.com/acme/site.git', ref: 'refs/heads/main', credentials: 'github' },
      lookup: { why: 'schedule "nightly" names refs/heads/main, not a commit', commit: true, pipelineFile: '.step-runner.yml' },
    });
  });
});
