import { InvalidPipeline, NOT_ASKED_FOR, type Step } from '../pipeline/index.js';
import { askedSteps } from './asked-steps.js';
import { listedSteps } from './state-data.js';
import { planSteps } from './step-plan.js';
import { parseImageReference } from '../pipeline/index.js';

const step = (name: string, extra: Partial<Step> = {}): Step => ({ name, image: 'alpine', imageRef: parseImageReference('alpine'), commands: ['true'], env: {}, pull: 'if-not-present', timeoutSeconds: 60, secrets: [], ...extra });
const pipeline = { file: 'p.yml', text: '' };
const onFeature = { ref: 'refs/heads/feature', event: 'push' };

test('every step when the input asks for none in particular', () => {
  const steps = [step('a'), step('b')];
  const asked = askedSteps(steps, { pipeline });
  expect(asked.steps.map((s) => s.name)).toEqual(['a', 'b']);
  expect(asked.skipped([{ name: 'b', index: 1, reason: 'r' }])).toEqual([{ name: 'b', index: 1, reason: 'r' }]);
});

test('the views list the steps left out as skipped at their place, beside those `when` skips', () => {
  const steps = [step('lint', { needs: [] }), step('deps', { needs: [] }), step('docs', { needs: ['deps'], when: { branch: ['main'] } }), step('test', { needs: ['deps'] })];
  const asked = askedSteps(steps, { pipeline, only: { steps: ['test', 'docs'], needs: true } });
  const plan = planSteps(asked.steps, onFeature, 'clone');
  const skipped = asked.skipped(plan.skipped);
  expect(skipped).toEqual([
    { name: 'lint', index: 0, reason: NOT_ASKED_FOR },
    { name: 'docs', index: 2, reason: 'branch feature is not main' },
  ]);
  const listed = listedSteps({ steps: [step('clone'), ...plan.running], skipped, settings: { checkoutStep: 'clone' } as never });
  expect(listed.map((s) => `${s.name}${s.skipped ? ' (skipped)' : ''}`)).toEqual(['clone', 'lint (skipped)', 'deps', 'docs (skipped)', 'test']);
});

test('a name that is no step fails the build as an invalid pipeline', () => {
  expect(() => askedSteps([step('a')], { pipeline, only: { steps: ['b'], needs: true } })).toThrow(InvalidPipeline);
});
