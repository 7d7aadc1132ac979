import type { Step } from '../pipeline/types.js';
import { rerunPlan } from './rerun-plan.js';

const step = (name: string, extra: Partial<Step> = {}): Step =>
  ({ name, image: 'busybox:1.36', commands: ['true'], env: {}, secrets: [], ...extra }) as Step;

describe('rerunPlan', () => {
  it.each([
    {
      title: 'one after another: the failed step and the ones after it, in order',
      steps: [step('clone'), step('build'), step('test'), step('deploy')],
      succeeded: ['clone', 'build'],
      expected: [{ name: 'test' }, { name: 'deploy' }],
    },
    {
      title: 'needs that succeeded are met; needs that run again stay',
      steps: [
        step('clone', { needed: true }),
        step('lint', { needs: ['clone'] }),
        step('unit', { needs: ['clone'], needed: true }),
        step('e2e', { needs: ['clone', 'unit'] }),
      ],
      succeeded: ['clone', 'lint'],
      expected: [
        { name: 'unit', needs: [], needed: true },
        { name: 'e2e', needs: ['unit'] },
      ],
    },
    {
      title: 'a step needed only by steps that succeeded keeps no pod for them',
      steps: [step('clone'), step('a', { needs: ['clone'], needed: true }), step('b', { needs: ['a'] })],
      succeeded: ['clone', 'b'],
      expected: [{ name: 'a', needs: [] }],
    },
    {
      title: 'an approval given is not asked again; one that was not is awaited again',
      steps: [step('approve', { needed: true }), step('production', { needs: ['approve'], awaits: ['approve'] }), step('gate', { needs: ['production'], needed: true }), step('last', { needs: ['gate'], awaits: ['gate'] })],
      succeeded: ['approve'],
      expected: [
        { name: 'production', needs: [], needed: true },
        { name: 'gate', needs: ['production'], needed: true },
        { name: 'last', needs: ['gate'], awaits: ['gate'] },
      ],
    },
    { title: 'nothing failed: nothing to re-run', steps: [step('clone'), step('test')], succeeded: ['clone', 'test'], expected: [] },
  ])('$title', ({ steps, succeeded, expected }) => {
    const plan = rerunPlan(steps, new Set(succeeded));
    expect(plan.map(({ name, needs, needed, awaits }) => ({ name, ...(needs ? { needs } : {}), ...(needed ? { needed } : {}), ...(awaits ? { awaits } : {}) }))).toEqual(expected);
  });

  it('keeps everything else about a step', () => {
    const test = step('test', { env: { CI: 'true' }, timeoutSeconds: 60 } as Partial<Step>);
    expect(rerunPlan([step('clone'), test], new Set(['clone']))).toEqual([test]);
  });
});
