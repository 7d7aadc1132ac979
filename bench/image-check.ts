/**
 * The image check: what it saves and what it costs, on the embedded cluster at DEFAULT_TIMINGS with
 * its catalog registry on loopback (the same requests a real registry gets).
 *
 * - Time to FAILED for a missing image in the last of five steps of 10 s each: the real definition
 *   and handlers, from StartExecution to ExecutionFailed, with the check on (it fails PrepareBuild)
 *   and, for comparison, off (the fifth pod's pull fails after four steps have run).
 * - The time the check adds when every image exists: PrepareBuild itself (the task function, as
 *   its Lambda runs it), with and without the check, alternating; each run with a fresh checker,
 *   as the first build of a cold Lambda gets (no cached verdicts), and with a warm one.
 */
import { pullSecretsReader } from '../lib/kube/index.js';
import { startLocalExecution } from '../lib/emulators/stepfunctions/executor.js';
import type { CatalogRegistry } from '../lib/emulators/kubernetes/index.js';
import { imageChecker } from '../lib/registry/index.js';
import type { TaskRuntime } from '../lib/workflow/task-deps.js';
import type { LocalTaskRuntime } from '../lib/local/task-runtime.js';
import { prepareBuild } from '../lib/workflow/tasks/prepare-build.js';
import { median } from './stats.js';

const stepYaml = (name: string, image: string) => `  - name: ${name}\n    image: ${image}\n    commands: ["sleep 10"]\n`;
const GOOD_IMAGES = ['alpine:3.20', 'busybox:1.37', 'node:22-alpine', 'python:3.13-slim', 'golang:1.25-alpine'];
export const FIVE_STEPS_LAST_MISSING = `version: 1\nsteps:\n${['one', 'two', 'three', 'four'].map((n, i) => stepYaml(n, GOOD_IMAGES[i]!)).join('')}${stepYaml('five', 'alpine:3.99-typo')}`;
const FIVE_STEPS_ALL_EXIST = `version: 1\nsteps:\n${['one', 'two', 'three', 'four', 'five'].map((n, i) => stepYaml(n, GOOD_IMAGES[i]!)).join('')}`;

export interface TimeToFailed {
  ms: number;
  error: string | null;
  stepsRun: number;
}

export async function timeToFailed(runtime: TaskRuntime, imageCheck: boolean): Promise<TimeToFailed> {
  const started = Date.now();
  let ended = started;
  const execution = startLocalExecution(
    {
      build: { id: `imgcheck-${imageCheck ? 'on' : 'off'}-${Date.now().toString(36)}`, trigger: 'benchmark' },
      pipeline: { file: 'five-steps.yml', text: FIVE_STEPS_LAST_MISSING },
      namespace: runtime.settings.namespace,
      withoutSource: 'the benchmark measures its steps',
    },
    {
      runtime: { ...runtime, settings: { ...runtime.settings, imageCheck } },
      onEvent: (event) => {
        if (event.type === 'ExecutionFailed') ended = event.timestamp;
      },
    },
  );
  const summary = await execution.result;
  return { ms: ended - started, error: summary.error, stepsRun: summary.steps.filter((s) => s.status === 'succeeded').length };
}

export interface CheckCost {
  /** Median PrepareBuild time without the check, with it on a fresh checker, with it warm (cached). */
  offMs: number;
  coldMs: number;
  warmMs: number;
  /** Requests the catalog registry answered per image, fresh checker. */
  requestsPerImage: number;
  runs: number;
}

export async function checkCost(runtime: LocalTaskRuntime, registry: CatalogRegistry, mirror: string, runs: number): Promise<CheckCost> {
  // Ephemeral: no claim is made, so the three figures differ by the check alone.
  const settings = { ...runtime.settings, workspaceMode: 'ephemeral' as const };
  const input = (n: number) => ({
    build: { id: `cost-${n}`, trigger: 'benchmark' },
    pipeline: { file: 'five-steps.yml', text: FIVE_STEPS_ALL_EXIST },
    withoutSource: 'the benchmark measures its images',
  });
  const time = async (fn: () => Promise<unknown>) => {
    const start = performance.now();
    await fn();
    return performance.now() - start;
  };
  const readPullSecrets = pullSecretsReader(runtime.kube);
  const warm = imageChecker({ readPullSecrets, mirror });
  await prepareBuild(input(-1), settings, { ...runtime.deps, checkImages: warm });
  const off: number[] = [];
  const cold: number[] = [];
  const cached: number[] = [];
  let requests = 0;
  for (let run = 0; run < runs; run++) {
    off.push(await time(() => prepareBuild(input(run), { ...settings, imageCheck: false }, runtime.deps)));
    const before = registry.requests();
    cold.push(await time(() => prepareBuild(input(run), settings, { ...runtime.deps, checkImages: imageChecker({ readPullSecrets, mirror }) })));
    requests += registry.requests() - before;
    cached.push(await time(() => prepareBuild(input(run), settings, { ...runtime.deps, checkImages: warm })));
  }
  return { offMs: median(off), coldMs: median(cold), warmMs: median(cached), requestsPerImage: requests / runs / GOOD_IMAGES.length, runs };
}
