import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkSchedules, scheduleExecutionInput, type Schedule } from '../forge/schedules.js';

type Rules = { checkSchedules: typeof checkSchedules; scheduleExecutionInput: typeof scheduleExecutionInput };
// The plugin loads these through tsx, which jest's module loader does not take: the same modules, given.
const rules = (): Rules => ({ checkSchedules, scheduleExecutionInput });
const plugin = createRequire(import.meta.url)('./schedules.cjs') as {
  readSchedules(file: string, options?: { serviceDir?: string; rules?: () => Rules }): Promise<Schedule[]>;
};

describe("the deployment's schedules file", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'schedules-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('reads the file beside serverless.yml; no file, no schedules', async () => {
    expect((await plugin.readSchedules('test/fixtures/deploy/schedules.yml', { rules })).map((s) => [s.name, s.expression, s.timezone])).toEqual([
      ['nightly', 'cron(0 3 * * ? *)', 'Europe/Paris'],
      ['hourly-docs', 'rate(1 hour)', 'UTC'],
    ]);
    expect(await plugin.readSchedules('no-such-schedules.yml', { serviceDir: dir, rules })).toEqual([]);
  });

  it('stops packaging on a bad expression, naming the file, the schedule and the field', async () => {
    await writeFile(path.join(dir, 'bad.yml'), 'nightly:\n  schedule: cron(0 3 * * *)\n  repository: acme/site\n  ref: refs/heads/main\n');
    await expect(plugin.readSchedules('bad.yml', { serviceDir: dir, rules })).rejects.toThrow(
      "bad.yml: schedule \"nightly\": schedule: cron(0 3 * * *): has 5 fields; EventBridge Scheduler's cron has six: minutes hours day-of-month month day-of-week year",
    );
  });
});
