import { readFileSync } from 'node:fs';
import { fakeStepCluster } from '../kube/fake-cluster.js';
import type { BuildInput } from '../contract/index.js';
import { BUILD_TIME_LIMIT_SECONDS, DEFAULT_STEP_TIMEOUT_SECONDS, InvalidPipeline, MAX_STEPS } from '../pipeline/index.js';
import { CHECKOUT_TIMEOUT_SECONDS } from './checkout-step.js';
import { loadDefinition, type AslDefinition } from './definition.js';
import {
  BUILD_HISTORY_SHAPE,
  DEPLOYED_WATCHES,
  HistoryLimits,
  buildHistoryEvents,
  historyBudgetProblem,
  historyShape,
  largestBuild,
  needsChecks,
  stepHistoryEvents,
  stepPolls,
  worstCase,
  worstWaitSeconds,
  withWorstWaits,
  WorstCase,
  type HistoryShape,
  type Watches,
} from './history-budget.js';
import { DEFAULT_PENDING_WATCH_SECONDS, DEFAULT_RUNNING_WATCH_SECONDS, DEFAULT_RUNNING_WATCH_UNTIL_SECONDS, workflowSettings } from './settings.js';
import type { TaskDeps } from './task-deps.js';
import { prepareBuild } from './tasks/prepare-build.js';
import { NEEDS_POLL_SECONDS } from './tasks/wait-for-needs.js';

const MINUTE = 60;
const HOUR = 60 * MINUTE;
/** No watch at all: every poll on the schedule. */
const PLAIN: Watches = { pendingWatchSeconds: 0, runningWatchSeconds: 0 };
/** The pending watch alone: a running step polled on the schedule. */
const PENDING_ONLY: Watches = { pendingWatchSeconds: DEFAULT_PENDING_WATCH_SECONDS, runningWatchSeconds: 0 };
/** Watching a running step for the whole of its run, however long. */
const WHOLE_RUN: Watches = { pendingWatchSeconds: DEFAULT_PENDING_WATCH_SECONDS, runningWatchSeconds: DEFAULT_RUNNING_WATCH_SECONDS };
const VARIANTS = [DEPLOYED_WATCHES, WHOLE_RUN, PENDING_ONLY, PLAIN];

describe('historyShape', () => {
  it('is what PrepareBuild uses: the copy in history-budget.ts matches state-machine.asl.yml', () => {
    // On a change to the definition, paste the received shape into BUILD_HISTORY_SHAPE (and see the docs/pipeline.md test).
    expect(historyShape(loadDefinition())).toEqual(BUILD_HISTORY_SHAPE);
  });

  /** The real definition, edited: each case adds a state where a build passes it. */
  const edited = (edit: (definition: AslDefinition) => void): HistoryShape => {
    const definition = loadDefinition();
    edit(definition);
    return historyShape(definition);
  };
  const base = historyShape(loadDefinition());
  const iteration = (definition: AslDefinition) => definition.States.RunSteps!.ItemProcessor!;

  it.each<[string, (definition: AslDefinition) => void, HistoryShape]>([
    [
      'a Pass in the poll loop costs every poll two events',
      (d) => {
        const loop = iteration(d).States;
        loop.Note = { Type: 'Pass', Next: 'StepStatus' };
        loop.PollStep!.Next = 'Note';
      },
      { ...base, pollEvents: base.pollEvents + 2 },
    ],
    [
      'a Task before the loop costs every step five',
      (d) => {
        const machine = iteration(d);
        machine.States.Before = { Type: 'Task', Resource: 'x', Next: machine.StartAt };
        machine.StartAt = 'Before';
      },
      { ...base, stepEvents: base.stepEvents + 5 },
    ],
    [
      'a Pass in the needs loop costs every look that finds the needs unmet two',
      (d) => {
        const loop = iteration(d).States;
        loop.Note = { Type: 'Pass', Next: 'NeedsMet' };
        loop.WaitForNeeds!.Next = 'Note';
      },
      // The last look passes it too, on its way to LaunchStep.
      { ...base, needsEvents: base.needsEvents + 2, needsStepEvents: base.needsStepEvents + 2 },
    ],
    [
      'a Pass on the way into the needs loop costs only the steps with needs',
      (d) => {
        const machine = iteration(d);
        machine.States.Note = { Type: 'Pass', Next: 'WaitForNeeds' };
        (machine.States.StepNeeds!.Choices as { Next: string }[])[0]!.Next = 'Note';
      },
      { ...base, needsStepEvents: base.needsStepEvents + 2 },
    ],
    [
      'a Pass after a succeeded Map costs a succeeded build two',
      (d) => {
        d.States.Note = { Type: 'Pass', Next: d.States.RunSteps!.Next };
        d.States.RunSteps!.Next = 'Note';
      },
      { ...base, buildEvents: { ...base.buildEvents, succeeded: base.buildEvents.succeeded + 2 } },
    ],
  ])('follows the definition: %s', (_, edit, expected) => {
    expect(edited(edit)).toEqual(expected);
  });

  it.each([
    ['poll', 'WaitForStep', '$.poll.nextPollSeconds'],
    ['needs', 'WaitBeforeNeeds', '$.needs.nextPollSeconds'],
  ])('refuses a definition whose %s loop it cannot find, rather than guess', (_, wait, path) => {
    expect(() => edited((d) => void (iteration(d).States[wait]!.SecondsPath = '$.other'))).toThrow(path);
  });
});

describe('stepPolls', () => {
  // Worked by hand from poll-schedule.ts: with the watch, one poll holds until the pod runs; then
  // polls 1, 2, 4, 8... seconds into the run, never past one second after the deadline.
  it.each([
    ['watched pull, short run', { pendingSeconds: 10, runSeconds: 5, timeoutSeconds: HOUR }, PENDING_ONLY, 5], // 10 | 11 12 14 | 18 ended
    ['plain polling while pending', { pendingSeconds: 10, runSeconds: 5, timeoutSeconds: HOUR }, PLAIN, 14], // 1..9 | 10 11 12 14 | 18
    ['a pull longer than one watch', { pendingSeconds: 50, runSeconds: 5, timeoutSeconds: HOUR }, PENDING_ONLY, 7], // 20 40 | 50 51 52 54 | 58
    ['until the deadline', { pendingSeconds: 10, timeoutSeconds: 100 }, PENDING_ONLY, 9], // 10 | 11 12 14 18 26 42 74 | 101
    ['a pod the deadline ends while pending', { pendingSeconds: 10, timeoutSeconds: 5 }, PENDING_ONLY, 1], // 5
    // Watching while it runs too: one poll holds until the pod runs, one until it ends.
    ['watched pull and run', { pendingSeconds: 10, runSeconds: 5, timeoutSeconds: HOUR }, DEPLOYED_WATCHES, 2], // 10 | 15 ended
    ['a run longer than one watch', { pendingSeconds: 10, runSeconds: 600, timeoutSeconds: HOUR }, DEPLOYED_WATCHES, 4], // 10 | 250 490 | 610
    ['a watched run until the deadline', { pendingSeconds: 10, timeoutSeconds: 100 }, DEPLOYED_WATCHES, 2], // 10 | 100
    // Past runningWatchUntilSeconds (900 s of running), the schedule: a poll a minute.
    ['a run past the watch\'s limit', { pendingSeconds: 10, runSeconds: 1000, timeoutSeconds: HOUR }, DEPLOYED_WATCHES, 7], // 10 | 250 490 730 910 | 970 1030 ended at 1010
    ['the same run watched whole', { pendingSeconds: 10, runSeconds: 1000, timeoutSeconds: HOUR }, WHOLE_RUN, 6], // 10 | 250 490 730 970 | 1010
  ])('%s', (_, step, watches, polls) => {
    expect(stepPolls(step, watches)).toBe(polls);
  });

  it('costs a poll a minute at most once a step has run a while, one per watch when it watches the whole run', () => {
    const at = (hours: number, watches: Watches) => stepPolls({ pendingSeconds: 10, timeoutSeconds: hours * HOUR }, watches);
    expect(at(2, PENDING_ONLY) - at(1, PENDING_ONLY)).toBe(60);
    expect(at(2, DEPLOYED_WATCHES) - at(1, DEPLOYED_WATCHES)).toBe(60);
    expect(at(2, WHOLE_RUN) - at(1, WHOLE_RUN)).toBe(HOUR / DEFAULT_RUNNING_WATCH_SECONDS);
  });
});

describe('buildHistoryEvents and largestBuild', () => {
  const shape: HistoryShape = { buildEvents: { succeeded: 20, failed: 26 }, stepEvents: 12, pollEvents: 9, needsStepEvents: 7, needsEvents: 9, awaitsEvents: 7, retryEvents: 4 };

  it('counts each retry a step asks for as another attempt, its polls again and the way back to the launch', () => {
    const step = { pendingSeconds: 10, runSeconds: 5, timeoutSeconds: HOUR };
    const once = buildHistoryEvents([step], { shape, ...PENDING_ONLY });
    expect(buildHistoryEvents([{ ...step, retries: 2 }], { shape, ...PENDING_ONLY })).toBe(once + 2 * (12 + 5 * 9 + 4));
    // The default (an interrupted step tried twice) is the cluster's doing and not budgeted; a retry the pipeline asks for is.
    const interrupted = { max: 2, on: ['StepInterrupted'] };
    expect(withWorstWaits([{ name: 'a', timeoutSeconds: 60, retry: { max: 3, on: ['StepFailed'] } }, { name: 'b', timeoutSeconds: 60, retry: interrupted }])).toEqual([
      { name: 'a', timeoutSeconds: 60, retries: 3 },
      { name: 'b', timeoutSeconds: 60 },
    ]);
  });

  it('counts the longer ending once, and each step with its polls', () => {
    const step = { pendingSeconds: 10, runSeconds: 5, timeoutSeconds: HOUR }; // 5 polls without a watch of the run, 2 with
    expect(buildHistoryEvents([step, step], { shape, ...PENDING_ONLY })).toBe(26 + 2 * (12 + 5 * 9));
    expect(buildHistoryEvents([step, step], { shape })).toBe(26 + 2 * (12 + 2 * 9));
  });

  it('counts a step with needs its way through the needs loop, and each look that finds them unmet', () => {
    const step = { pendingSeconds: 10, runSeconds: 5, timeoutSeconds: HOUR }; // 2 polls with the deployed watches
    expect(buildHistoryEvents([{ ...step, waitSeconds: 0 }], { shape })).toBe(26 + 12 + 7 + 2 * 9);
    expect(buildHistoryEvents([{ ...step, waitSeconds: 500 }], { shape })).toBe(26 + 12 + 7 + 2 * 9 + 2 * 9); // looks at 0, 240, 480
  });

  it.each([10, MINUTE, 10 * MINUTE, HOUR, 24 * HOUR])('fits as many %i s steps as the limit allows, and no more', (runSeconds) => {
    const step = { pendingSeconds: 10, runSeconds, timeoutSeconds: BUILD_TIME_LIMIT_SECONDS };
    const n = largestBuild(step);
    expect(buildHistoryEvents(Array(n).fill(step))).toBeLessThanOrEqual(HistoryLimits.MAX_EVENTS);
    expect(buildHistoryEvents(Array(n + 1).fill(step))).toBeGreaterThan(HistoryLimits.MAX_EVENTS);
  });
});

describe('needsChecks', () => {
  // With the watch a look holds until the needs have succeeded or the watch is up; without it, looks come NEEDS_POLL_SECONDS apart.
  it.each([
    ['needs met already', 0, DEPLOYED_WATCHES, 1],
    ['met within the first watch', 239, DEPLOYED_WATCHES, 1],
    ['met as the first watch ends', 240, DEPLOYED_WATCHES, 2],
    ['an hour', HOUR, DEPLOYED_WATCHES, 16],
    ['no watch: met already', 0, PLAIN, 1],
    ['no watch: met between two looks', 7, PLAIN, 3], // 0 5 10
    ['no watch: an hour', HOUR, PLAIN, 721],
    ['the pending watch alone does not watch needs', 7, PENDING_ONLY, 3],
  ])('%s', (_, waitSeconds, watches, checks) => {
    expect(needsChecks(waitSeconds, watches)).toBe(checks);
  });

  it('looks every NEEDS_POLL_SECONDS without a watch', () => {
    expect(needsChecks(10 * NEEDS_POLL_SECONDS, PLAIN)).toBe(11);
  });
});

describe('worstWaitSeconds', () => {
  const step = (name: string, timeoutSeconds: number, needs?: string[]) => ({ name, timeoutSeconds, ...(needs ? { needs } : {}) });
  // Each step's worst: pending 10 s, then running until its timeout.
  it.each<[string, ReturnType<typeof step>[], (number | undefined)[]]>([
    ['one after another, no needs: nobody waits', [step('a', 60), step('b', 60)], [undefined, undefined]],
    ['a step that needs the clone waits for it', [step('clone', 600), step('a', 60, ['clone'])], [undefined, 610]],
    ['needs: [] waits for nothing', [step('a', 60, []), step('b', 60, [])], [0, 0]],
    ['the longest of its needs', [step('clone', 100), step('a', 60, ['clone']), step('b', 600, ['clone']), step('c', 60, ['a', 'b'])], [undefined, 110, 110, 720]],
    ['the longest chain, not the sum', [step('clone', 100), step('a', 60, ['clone']), step('b', 600, ['clone']), step('c', 60, ['a'])], [undefined, 110, 110, 180]],
    ['through needs it does not name', [step('a', 100, []), step('b', 100, ['a']), step('c', 100, ['b'])], [0, 110, 220]],
    ['a name outside the build (skipped, or checked out in each pod) holds nothing up', [step('a', 60, ['clone', 'gone'])], [0]],
    ['in any order', [step('c', 60, ['a']), step('a', 100)], [110, undefined]],
    ['never past the execution\'s own limit', [step('a', BUILD_TIME_LIMIT_SECONDS, []), step('b', 60, ['a'])], [0, BUILD_TIME_LIMIT_SECONDS]],
  ])('%s', (_, steps, waits) => {
    expect(worstWaitSeconds(steps)).toEqual(waits);
  });

  it('counts another pending allowance when given one', () => {
    expect(worstWaitSeconds([step('a', 100, []), step('b', 100, ['a']), step('c', 100, ['b'])], 600)).toEqual([0, 700, 1400]);
  });

  it('gives historyBudgetProblem the steps with needs and their waits, the others as they are', () => {
    expect(withWorstWaits([step('clone', 100), step('a', 60, ['clone'])])).toEqual([
      { name: 'clone', timeoutSeconds: 100 },
      { name: 'a', timeoutSeconds: 60, waitSeconds: 110 },
    ]);
  });

  it('counts a step that needs an approval (directly or not) once for its wait, however long the approval takes (PrepareBuild counts the approval 1 s)', () => {
    const gate = { ...step('approve', 1, ['staging']), approval: {} };
    const [, , production, smoke] = withWorstWaits([step('staging', 100, []), gate, step('production', 60, ['approve']), step('smoke', 60, ['production'])]);
    expect(production).toEqual({ name: 'production', timeoutSeconds: 60, waitSeconds: 121, awaitsApproval: true });
    // Through production: it waits for the approval first too, then looks only while production runs.
    expect(smoke).toEqual({ name: 'smoke', timeoutSeconds: 60, waitSeconds: 191, awaitsApproval: true });
    const without = { ...production!, awaitsApproval: undefined };
    delete without.awaitsApproval;
    expect(stepHistoryEvents(worstCase(production!)) - stepHistoryEvents(worstCase(without))).toBe(BUILD_HISTORY_SHAPE.awaitsEvents);
  });

  it('throws on a cycle, which the pipeline\'s own check refuses first', () => {
    expect(() => worstWaitSeconds([step('a', 60, ['b']), step('b', 60, ['a'])])).toThrow('cycle');
  });
});

describe('historyBudgetProblem', () => {
  const steps = (n: number, timeoutSeconds: number) => Array.from({ length: n }, (_, i) => ({ name: `s${i}`, timeoutSeconds }));

  it('refuses a thousand one-minute steps, naming the file, the events and what to do', () => {
    const problem = historyBudgetProblem('.step-runner.yml', [{ name: 'clone', timeoutSeconds: CHECKOUT_TIMEOUT_SECONDS }, ...steps(1000, MINUTE)]);
    expect(problem).toBeInstanceOf(InvalidPipeline);
    expect(problem?.location).toEqual({ file: '.step-runner.yml', field: 'steps' });
    expect(problem?.message).toMatch(
      /^\.step-runner\.yml: at worst \(each of its 1001 steps \(the "clone" step included\) pending 10 s, then running until its timeout\) this build would write [\d,]+ Step Functions history events, more than the 25,000 one execution may hold; use fewer steps, or give them shorter "timeout"s$/,
    );
  });

  it.each([
    ['24 steps with the default timeout', steps(24, DEFAULT_STEP_TIMEOUT_SECONDS)],
    ['one step of 24 h', steps(1, BUILD_TIME_LIMIT_SECONDS)],
    [`${MAX_STEPS} steps sharing 24 h`, steps(MAX_STEPS, Math.floor(BUILD_TIME_LIMIT_SECONDS / MAX_STEPS))],
    [`${MAX_STEPS} one-minute steps`, steps(MAX_STEPS, MINUTE)],
  ])('accepts %s, with the clone, with or without the pending watch', (_, pipelineSteps) => {
    const run = [{ name: 'clone', timeoutSeconds: CHECKOUT_TIMEOUT_SECONDS }, ...pipelineSteps];
    for (const watches of VARIANTS) expect(historyBudgetProblem('p.yml', run, watches)).toBeUndefined();
  });

  it("counts each combination of a matrix, and says how many of them would fit", () => {
    const build = (n: number) =>
      withWorstWaits([
        { name: 'clone', timeoutSeconds: CHECKOUT_TIMEOUT_SECONDS },
        ...Array.from({ length: n }, (_, i) => ({ name: `test-v-${i}`, timeoutSeconds: DEFAULT_STEP_TIMEOUT_SECONDS, needs: ['clone'], matrix: { of: 'test' } })),
        { name: 'report', timeoutSeconds: MINUTE, needs: Array.from({ length: n }, (_, i) => `test-v-${i}`) },
      ]);
    const message = historyBudgetProblem('ci.yml', build(100))?.message ?? '';
    const fit = Number(/its matrix "test" makes 100 steps, of which (\d+) would fit with the others as they are; use fewer steps/.exec(message)?.[1]);
    expect(fit).toBeGreaterThan(0);
    expect(historyBudgetProblem('ci.yml', build(fit))).toBeUndefined();
    expect(historyBudgetProblem('ci.yml', build(fit + 1))).toBeInstanceOf(InvalidPipeline);
  });

  it('counts a matrix with fail-fast: false as any other: a failed combination ends its iteration, and a step that needs it stops waiting', () => {
    const matrix = (failFast?: false) =>
      withWorstWaits([
        { name: 't-1', timeoutSeconds: 3600, needs: [], matrix: { of: 't', ...(failFast === false ? { failFast } : {}) } },
        { name: 't-2', timeoutSeconds: 7200, needs: [], matrix: { of: 't', ...(failFast === false ? { failFast } : {}) } },
        { name: 'report', timeoutSeconds: 60, needs: ['t-1', 't-2'] },
      ]);
    const events = (steps: ReturnType<typeof matrix>) => buildHistoryEvents(steps.map(worstCase));
    expect(events(matrix(false))).toBe(events(matrix()));
  });

  /** The clone, then `n` steps that each need `needs` (a step named in the list, or the clone), with their waits. */
  const waiting = (first: { name: string; timeoutSeconds: number }[], n: number, timeoutSeconds: number, needs: string[]) => {
    const all = [{ name: 'clone', timeoutSeconds: CHECKOUT_TIMEOUT_SECONDS }, ...first.map((s) => ({ ...s, needs: ['clone'] })), ...steps(n, timeoutSeconds).map((s) => ({ ...s, needs }))];
    return withWorstWaits(all);
  };

  it.each<[string, ReturnType<typeof waiting>, Watches, boolean]>([
    ['40 ten-minute steps side by side after the clone', waiting([], 40, 10 * MINUTE, ['clone']), DEPLOYED_WATCHES, true],
    ['40 ten-minute steps after a 2 h build step', waiting([{ name: 'build', timeoutSeconds: 2 * HOUR }], 40, 10 * MINUTE, ['build']), DEPLOYED_WATCHES, true],
    ['40 ten-minute steps after a 12 h build step', waiting([{ name: 'build', timeoutSeconds: 12 * HOUR }], 40, 10 * MINUTE, ['build']), DEPLOYED_WATCHES, false],
    // Without the watch every look is 5 s apart: an hour of waiting is 720 looks.
    ['40 ten-minute steps after a 2 h build step, no watch', waiting([{ name: 'build', timeoutSeconds: 2 * HOUR }], 40, 10 * MINUTE, ['build']), PLAIN, false],
    ['5 one-minute steps after a 10 min build step, no watch', waiting([{ name: 'build', timeoutSeconds: 10 * MINUTE }], 5, MINUTE, ['build']), PLAIN, true],
  ])('counts the wait of steps with needs: %s', (_, run, watches, fits) => {
    expect(historyBudgetProblem('p.yml', run, watches) === undefined).toBe(fits);
  });

  it('says waiting counts when it refuses steps that wait', () => {
    const run = waiting([{ name: 'build', timeoutSeconds: 12 * HOUR }], 40, 10 * MINUTE, ['build']);
    expect(historyBudgetProblem('p.yml', run)?.message).toMatch(
      /^p\.yml: at worst \(each of its 42 steps \(the "clone" step included\) waiting until the steps it needs end, pending 10 s, then running until its timeout\) this build would write [\d,]+ Step Functions history events, more than the 25,000 one execution may hold; use fewer steps, give them shorter "timeout"s, or have fewer steps wait for long ones$/,
    );
  });
});

describe('PrepareBuild', () => {
  // The largest file the schema accepts: the check must let it through (it can refuse none without needs, see below).
  const steps = Array.from({ length: MAX_STEPS }, (_, i) => `  - {name: s${i}, image: alpine:3.20, commands: ["true"], timeout: ${Math.floor(BUILD_TIME_LIMIT_SECONDS / MAX_STEPS)}}`);
  const input: BuildInput = { build: { id: 'b1' }, pipeline: { file: 'p.yml', text: `version: 1\ncheckout: false\nsteps:\n${steps.join('\n')}\n` } };
  const deps: Pick<TaskDeps, 'cluster' | 'log' | 'checkImages'> = {
    cluster: fakeStepCluster(),
    log: { info: () => undefined, warn: () => undefined } as unknown as TaskDeps['log'],
    checkImages: async (images) => ({ verdicts: new Map(images.map((image) => [image.original, { kind: 'found', digest: 'sha256:0' } as const])), notes: [] }),
  };

  it.each(VARIANTS)('prepares the largest valid build (%o)', async (watches) => {
    const settings = workflowSettings({ namespace: 'default', workspaceMode: 'ephemeral', ...watches });
    expect((await prepareBuild(input, settings, deps)).steps).toHaveLength(MAX_STEPS);
  });
});

/**
 * The most events any file without needs the schema accepts can cost at worst: MAX_STEPS steps whose timeouts
 * add up to at most BUILD_TIME_LIMIT_SECONDS, plus the clone. Past the schedule's first minutes a
 * step costs one poll a minute, so polls(T) <= slack + T / 60, with the slack found over the first
 * hour (past it polls(T) - T / 60 repeats every minute: the test below); the bound then follows
 * without trying every split of the 24 h.
 */
function largestValidBuildBound(watches: Watches): number {
  const polls = (timeoutSeconds: number) => stepPolls(worstCase({ timeoutSeconds }), watches);
  let slack = 0;
  for (let t = 1; t <= HOUR + MINUTE; t++) slack = Math.max(slack, polls(t) - t / MINUTE);
  const options = watches;
  const pollEvents = BUILD_HISTORY_SHAPE.pollEvents;
  const stepsBound = MAX_STEPS * (BUILD_HISTORY_SHAPE.stepEvents + slack * pollEvents) + (BUILD_TIME_LIMIT_SECONDS / MINUTE) * pollEvents;
  return Math.ceil(buildHistoryEvents([worstCase({ timeoutSeconds: CHECKOUT_TIMEOUT_SECONDS })], options) + stepsBound);
}

describe('the file\'s own limits', () => {
  // Steps with needs may wait as long as the steps before them run, a look per watch: only such files can be refused.
  it('keep every file without needs within the history limit, with or without the pending watch', () => {
    // Were this to fail (more steps allowed, a denser schedule), PrepareBuild's check starts refusing files.
    for (const watches of VARIANTS) expect(largestValidBuildBound(watches)).toBeLessThan(HistoryLimits.MAX_EVENTS);
  });

  it('bound what a step costs the way the bound assumes: at most a poll a minute after the first hour', () => {
    for (const watches of VARIANTS) {
      const step = (t: number) => stepHistoryEvents(worstCase({ timeoutSeconds: t }), watches);
      for (let t = HOUR; t <= 2 * HOUR; t += 7) expect(step(t + MINUTE) - step(t)).toBeLessThanOrEqual(BUILD_HISTORY_SHAPE.pollEvents);
    }
  });
});

/** docs/pipeline.md, "How big a build can be": every figure there is this module's, so a change to the schedule or the definition shows. */
describe('the figures of docs/pipeline.md', () => {
  const readme = readFileSync(new URL('../../docs/pipeline.md', import.meta.url), 'utf8');
  const section = readme.split(/^## How big a build can be$/m)[1]?.split(/^##+ /m)[0] ?? '';
  const prose = section.replace(/\s+/g, ' ');
  const number = (pattern: RegExp): number => {
    const found = pattern.exec(prose);
    if (!found) throw new Error(`docs/pipeline.md: no ${pattern} under "How big a build can be"`);
    return Number(found[1]!.replace(/,/g, ''));
  };
  const SECONDS = { s: 1, min: MINUTE, h: HOUR } as const;
  const rows = [...section.matchAll(/^\| (\d+) (s|min|h) \| ([\d,]+) \| ([\d,]+) \|$/gm)].map(([, n, unit, events, fit]) => ({
    runSeconds: Number(n) * SECONDS[unit as keyof typeof SECONDS],
    events: Number(events!.replace(/,/g, '')),
    fit: Number(fit!.replace(/,/g, '')),
  }));

  it('states the assumptions the module makes', () => {
    expect(number(/reaches ([\d,]+) events/)).toBe(HistoryLimits.MAX_EVENTS);
    expect(number(/a poll is (\d+) events/)).toBe(BUILD_HISTORY_SHAPE.pollEvents);
    expect(number(/a step costs (\d+) more/)).toBe(BUILD_HISTORY_SHAPE.stepEvents);
    expect(number(/deployment's (\d+) s watch of a pending pod/)).toBe(DEFAULT_PENDING_WATCH_SECONDS);
    expect(number(/(\d+) s watch of a running one/)).toBe(DEFAULT_RUNNING_WATCH_SECONDS);
    expect(number(/for the first (\d+) s of a step's run/)).toBe(DEFAULT_RUNNING_WATCH_UNTIL_SECONDS);
    expect(number(/each pod pending (\d+) s/)).toBe(WorstCase.PENDING_SECONDS);
    expect(number(/every step pending (\d+) s/)).toBe(WorstCase.PENDING_SECONDS);
  });

  it('says what waiting for needs costs', () => {
    const { needsStepEvents, needsEvents } = BUILD_HISTORY_SHAPE;
    const anHour = (watches: Watches) => (needsChecks(HOUR, watches) - needsChecks(0, watches)) * needsEvents;
    expect(number(/A step with `needs` costs (\d+) more/)).toBe(needsStepEvents);
    expect(number(/each look that finds them unmet is (\d+) events/)).toBe(needsEvents);
    expect(number(/one look per (\d+) s/)).toBe(DEFAULT_RUNNING_WATCH_SECONDS);
    expect(number(/an hour of waiting costs ([\d,]+) events/)).toBe(anHour(DEPLOYED_WATCHES));
    expect(number(/one look every (\d+) s/)).toBe(NEEDS_POLL_SECONDS);
    expect(number(/one look every \d+ s, ([\d,]+)/)).toBe(anHour(PLAIN));
  });

  it('has the table of steps that fit, as computed', () => {
    expect(rows.length).toBeGreaterThanOrEqual(4);
    for (const row of rows) {
      const step = { pendingSeconds: WorstCase.PENDING_SECONDS, runSeconds: row.runSeconds, timeoutSeconds: BUILD_TIME_LIMIT_SECONDS };
      expect({ runSeconds: row.runSeconds, events: stepHistoryEvents(step), fit: largestBuild(step) }).toEqual(row);
    }
  });

  it('says what one 24 h step writes, and the bound on what a valid file can', () => {
    expect(number(/one step that runs until a 24 h timeout writes ([\d,]+) events/)).toBe(
      buildHistoryEvents([worstCase({ timeoutSeconds: BUILD_TIME_LIMIT_SECONDS })]),
    );
    // Rounded up to the hundred: what docs/pipeline.md promises must hold, and stay close to the bound.
    const roundedUp = (events: number) => Math.ceil(events / 100) * 100;
    expect(number(/keep every build without `needs` under ([\d,]+) events/)).toBe(roundedUp(largestValidBuildBound(DEPLOYED_WATCHES)));
    expect(number(/at worst \(([\d,]+) with both watches off\)/)).toBe(roundedUp(largestValidBuildBound(PLAIN)));
  });
});
