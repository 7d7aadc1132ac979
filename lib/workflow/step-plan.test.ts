import type { Step } from '../pipeline/index.js';
import { planSteps } from './step-plan.js';
import { parseImageReference } from '../pipeline/index.js';

const step = (name: string, extra: Partial<Step> = {}): Step => ({ name, image: 'alpine', imageRef: parseImageReference('alpine'), commands: ['true'], env: {}, pull: 'if-not-present', timeoutSeconds: 60, secrets: [], ...extra });
const onMain = { ref: 'refs/heads/main', event: 'push' };
const summary = (plan: ReturnType<typeof planSteps>) => plan.running.map((s) => [s.name, s.needs ?? null, s.needed ?? false]);

describe('which steps a build runs, in what order, after which others', () => {
  test.each<[string, Step[], string | undefined, unknown[]]>([
    ['without needs: the file\'s order, nothing waits', [step('a'), step('b')], 'clone', [['a', null, false], ['b', null, false]]],
    [
      'a diamond after the checkout',
      [step('deps'), step('unit', { needs: ['deps'] }), step('lint', { needs: ['deps'] }), step('e2e', { needs: ['unit', 'lint'] })],
      'clone',
      [['deps', ['clone'], true], ['unit', ['deps'], true], ['lint', ['deps'], true], ['e2e', ['unit', 'lint'], false]],
    ],
    [
      'no checkout step (an ephemeral workspace): clone in needs means nothing to wait for',
      [step('a', { needs: ['clone'] }), step('b', { needs: [] })],
      undefined,
      [['a', [], false], ['b', [], false]],
    ],
    [
      'a step that needs one further down comes after it',
      [step('report', { needs: ['test'] }), step('test', { needs: [] })],
      'clone',
      [['test', ['clone'], true], ['report', ['test'], false]],
    ],
  ])('%s', (_, steps, checkout, expected) => {
    expect(summary(planSteps(steps, onMain, checkout))).toEqual(expected);
  });

  it('says which approvals a step needs, directly or through the steps it needs (it awaits them before WaitForNeeds looks), and starts such steps last', () => {
    const approve: Partial<Step> = { approval: { selfApproval: true, timeoutSeconds: 3600 } };
    const plan = planSteps(
      [
        step('test'),
        step('build', { needs: [] }),
        step('staging', { needs: ['test', 'build'] }),
        step('approve', { needs: ['staging'], ...approve }),
        step('production', { needs: ['approve', 'build'] }),
        step('smoke', { needs: ['production'] }),
        // Below them in the file, but before them in the Map: it takes a slot first.
        step('docs', { needs: ['build'] }),
      ],
      onMain,
      'clone',
    );
    expect(plan.running.map((s) => [s.name, s.needs, s.awaits ?? null])).toEqual([
      ['test', ['clone'], null],
      ['build', ['clone'], null],
      ['staging', ['test', 'build'], null],
      ['approve', ['staging'], null],
      ['docs', ['build'], null],
      ['production', ['approve', 'build'], ['approve']],
      ['smoke', ['production'], ['approve']],
    ]);
  });

  it('keeps the steps that run after a failure apart, out of the way of the others', () => {
    const plan = planSteps(
      [step('test'), step('report', { when: { status: ['failure'] } }), step('deploy'), step('notify', { when: { status: ['failure'], branch: ['production'] } })],
      onMain,
      'clone',
    );
    expect(plan.afterFailure.map((s) => [s.name, s.when])).toEqual([['report', undefined]]);
    expect(plan.skipped.map((s) => s.name)).toEqual(['notify']);
    expect(summary(plan)).toEqual([['test', null, false], ['deploy', null, false]]);
    // With needs, the step below a failure step follows what that one followed.
    const parallel = planSteps([step('a', { needs: [] }), step('report', { when: { status: ['failure'] } }), step('b')], onMain, 'clone');
    expect(summary(parallel)).toEqual([['a', ['clone'], true], ['b', ['a'], false]]);
  });

  it("runs a matrix's combinations side by side in a pipeline with an approval, the step below the approval awaiting it", () => {
    const matrix = { of: 'test', values: { node: '20' } } as unknown as Step['matrix'];
    const approval = { selfApproval: true, timeoutSeconds: 60 };
    const steps = [step('test-node-20', { matrix }), step('test-node-22', { matrix }), step('staging'), { ...step('gate'), approval }, step('production')];
    const plan = planSteps(steps, onMain, 'clone');
    expect([plan.parallel, plan.running.map((s) => [s.name, s.needs, s.awaits ?? null])]).toEqual([
      true,
      [
        ['test-node-20', ['clone'], null],
        ['test-node-22', ['clone'], null],
        ['staging', ['test-node-20', 'test-node-22'], null],
        ['gate', ['staging'], null],
        ['production', ['gate'], ['gate']],
      ],
    ]);
  });

  it('says whether the checkout is needed, so its pod is kept for the steps that wait for it', () => {
    expect(planSteps([step('a', { needs: [] })], onMain, 'clone').checkoutNeeded).toBe(true);
    expect(planSteps([step('a')], onMain, 'clone').checkoutNeeded).toBe(false);
  });

  it('skips what needs a skipped step, and lets a step that only followed one wait for what that one needed', () => {
    const plan = planSteps(
      [
        step('build', { needs: [] }),
        step('deploy', { needs: ['build'], when: { branch: ['production'] } }),
        step('announce', { needs: ['deploy'] }),
        step('report'),
      ],
      onMain,
      'clone',
    );
    expect(plan.skipped).toEqual([
      { name: 'deploy', index: 1, reason: 'branch main is not production' },
      { name: 'announce', index: 2, reason: 'it needs "deploy", which is skipped' },
    ]);
    expect(summary(plan)).toEqual([['build', ['clone'], true], ['report', ['build'], false]]);
    expect(plan.running.every((s) => s.when === undefined)).toBe(true);
  });
});

describe('when.paths in the plan', () => {
  const docsOnly = { changes: { known: true as const, files: ['docs/README.md'] } };

  it('skips a step whose paths the change misses, and the steps that need it, as a branch would', () => {
    const plan = planSteps(
      [
        step('api', { needs: [], when: { paths: ['services/api/**'] } }),
        step('deploy-api', { needs: ['api'] }),
        step('site', { needs: [], when: { paths: ['docs/**'] } }),
        step('lint', { needs: [], when: { pathsIgnore: ['docs/**'] } }),
      ],
      onMain,
      'clone',
      docsOnly,
    );
    expect(plan.skipped).toEqual([
      { name: 'api', index: 0, reason: 'when.paths: no changed file matches services/api/**' },
      { name: 'deploy-api', index: 1, reason: 'it needs "api", which is skipped' },
      { name: 'lint', index: 3, reason: 'when.paths-ignore: every changed file matches docs/**' },
    ]);
    expect(summary(plan)).toEqual([['site', ['clone'], false]]);
  });

  it('skips every step for the pipeline\'s own filter, under the step\'s branch', () => {
    const plan = planSteps([step('a'), step('b', { when: { branch: ['production'] } })], onMain, 'clone', { ...docsOnly, pipeline: { paths: ['src/**'] } });
    expect(plan.skipped).toEqual([
      { name: 'a', index: 0, reason: "the pipeline's when.paths: no changed file matches src/**" },
      { name: 'b', index: 1, reason: 'branch main is not production' },
    ]);
    expect(plan.running).toEqual([]);
  });

  it('needs both the pipeline\'s filter and the step\'s to hold', () => {
    const changes = { known: true as const, files: ['src/main.ts'] };
    const plan = planSteps([step('a', { when: { paths: ['test/**'] } }), step('b')], onMain, 'clone', { changes, pipeline: { pathsIgnore: ['docs/**'] } });
    expect(plan.skipped.map((s) => [s.name, s.reason])).toEqual([['a', 'when.paths: no changed file matches test/**']]);
    expect(summary(plan)).toEqual([['b', null, false]]);
  });

  it('skips nothing by paths when the change is not known, or not given', () => {
    const steps = [step('a', { when: { paths: ['src/**'] } })];
    expect(planSteps(steps, onMain, 'clone', { changes: { known: false, why: 'a forced push' }, pipeline: { paths: ['src/**'] } }).skipped).toEqual([]);
    expect(planSteps(steps, onMain, 'clone', { pipeline: { paths: ['src/**'] } }).skipped).toEqual([]);
  });

  it('leaves no path filter in the state data', () => {
    const plan = planSteps([step('a', { when: { paths: ['docs/**'] } })], onMain, 'clone', docsOnly);
    expect(plan.running.map((s) => s.when)).toEqual([undefined]);
  });
});
