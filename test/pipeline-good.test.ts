import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_STEP_RETRY,
  DEFAULT_STEP_TIMEOUT_SECONDS,
  MAX_PIPELINE_BYTES,
  MAX_STEPS,
  MAX_STEPS_JSON_BYTES,
  loadPipelineFile,
  parseImageReference,
  parsePipeline,
  validatePipelineData,
  type Pipeline,
} from '../lib/pipeline/index.js';
import { InvalidPipeline } from '../lib/pipeline/index.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/pipelines/good/${name}`, import.meta.url));
const example = (name: string) => fileURLToPath(new URL(`../examples/${name}`, import.meta.url));

describe('good pipeline files', () => {
  test('a minimal file gets every default', async () => {
    const path = fixture('minimal.yml');
    expect(await loadPipelineFile(path)).toEqual<Pipeline>({
      version: 1,
      file: path,
      checkout: { depth: 1, submodules: false },
      steps: [
        {
          name: 'hello',
          image: 'alpine:3.20', imageRef: parseImageReference('alpine:3.20'),
          commands: ['echo hello'],
          env: {},
          pull: 'if-not-present',
          timeoutSeconds: DEFAULT_STEP_TIMEOUT_SECONDS,
          secrets: [],
          retry: DEFAULT_STEP_RETRY,
          line: 3,
        },
      ],
    });
  });

  test('a file using every field is normalised: durations in seconds, env text as written, merge keys applied', async () => {
    const pipeline = await loadPipelineFile(fixture('full.yml'));
    const commonEnv = { CI: 'true', NODE_VERSION: '22.10', PORT: '08080', GREETING: 'hello world' };
    expect(pipeline.imagePullGraceSeconds).toBe(120);
    expect(pipeline.checkout).toEqual({ depth: 0, submodules: true });
    expect(pipeline.steps).toEqual([
      {
        name: 'test',
        image: 'node:22-alpine',
        imageRef: parseImageReference('node:22-alpine'),
        commands: ['npm ci', 'npm test'],
        env: commonEnv,
        pull: 'always',
        timeoutSeconds: 5400,
        resources: { cpu: '0.5', memory: '512Mi' },
        secrets: [
          { env: 'DB_PASSWORD', secret: 'ci-db', key: 'password' },
          { env: 'API_TOKEN', secret: 'tokens.ci', key: 'api_token.v1' },
        ],
        retry: DEFAULT_STEP_RETRY,
        line: 9,
      },
      {
        name: 'package',
        image: 'registry.example.com:5000/tools/packager@sha256:0f3c7a0d1b2e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c',
        imageRef: parseImageReference('registry.example.com:5000/tools/packager@sha256:0f3c7a0d1b2e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c'),
        commands: ['make package'],
        env: { ...commonEnv, TARGET: 'linux' },
        pull: 'never',
        timeoutSeconds: 600,
        resources: { memory: '1Gi' },
        secrets: [],
        retry: DEFAULT_STEP_RETRY,
        line: 30,
      },
    ]);
    // Parsed once, with the file: the registry and repository are on the step.
    const registry = pipeline.steps[1]!.imageRef!;
    expect([registry.domain, registry.repository]).toEqual(['registry.example.com:5000', 'tools/packager']);
  });
});

describe('examples', () => {
  test('hello.yml has three steps on alpine, busybox and node', async () => {
    const pipeline = await loadPipelineFile(example('hello.yml'));
    expect(pipeline.steps.map((step) => [step.name, step.image])).toEqual([
      ['greet', 'alpine:3.20'],
      ['count', 'busybox:1.37'],
      ['inspect', 'node:22-alpine'],
    ]);
  });

  test('services.yml runs the catalog\'s echo server beside its step, waiting for its port', async () => {
    const pipeline = await loadPipelineFile(example('services.yml'));
    expect(pipeline.steps[0]?.services).toEqual([
      { name: 'echo', image: 'kong/go-echo:0.3.0', imageRef: parseImageReference('kong/go-echo:0.3.0'), env: { POD_NAME: 'services-example' }, ports: [1025], secrets: [], pull: 'if-not-present', line: 10 },
    ]);
  });

  test('missing-image.yml parses (the tag is well formed; only a registry can say it does not exist)', async () => {
    const pipeline = await loadPipelineFile(example('missing-image.yml'));
    expect(pipeline.steps).toHaveLength(3);
    expect(pipeline.steps[1]?.image).toBe('alpine:3.99-does-not-exist');
    expect(parseImageReference('alpine:3.99-does-not-exist').familiar).toBe('docker.io/library/alpine:3.99-does-not-exist');
  });
});

describe('limits', () => {
  const steps = (count: number, timeout?: string) =>
    'version: 1\nsteps:\n' +
    Array.from({ length: count }, (_, i) => `  - { name: s${i}, image: alpine, commands: [echo ${i}]${timeout ? `, timeout: ${timeout}` : ''} }\n`).join('');

  test(`${MAX_STEPS} steps are accepted and one more is not`, () => {
    expect(parsePipeline(steps(MAX_STEPS, '20m'), 'p.yml').steps).toHaveLength(MAX_STEPS);
    expect(() => parsePipeline(steps(MAX_STEPS + 1, '20m'), 'p.yml')).toThrow('p.yml line 2: steps: lists too many steps; at most 50 are allowed');
  });

  test('step timeouts that add up past the 24 h an execution may run are refused when read, not found TIMED_OUT later', () => {
    expect(parsePipeline(steps(24), 'p.yml').steps).toHaveLength(24);
    expect(() => parsePipeline(steps(25), 'p.yml')).toThrow(
      'p.yml line 2: steps: the steps\' timeouts add up to 25h (a step without "timeout" counts 1h), more than the 24h a build may run, past which Step Functions stops it as TIMED_OUT; give the steps shorter "timeout"s',
    );
    expect(() => parsePipeline(steps(7, '4h'), 'p.yml')).toThrow(/add up to 28h/);
  });

  test('an oversized file is refused before it is parsed', () => {
    const text = steps(1) + '# padding\n'.repeat(MAX_PIPELINE_BYTES / 10);
    expect(() => parsePipeline(text, 'big.yml')).toThrow(
      new InvalidPipeline("big.yml: the file is 65 KiB; a pipeline file may be at most 64 KiB, so that the build's data stays within Step Functions' 256 KiB per state", { file: 'big.yml' }),
    );
  });

  test('steps that aliases blow up past what a state can carry are refused', () => {
    const long = 'x'.repeat(8 * 1024);
    const text = `version: 1
steps:
  - name: a
    image: alpine
    commands: [&c "${long}", ${Array(20).fill('*c').join(', ')}]
`;
    expect(Buffer.byteLength(text)).toBeLessThan(MAX_PIPELINE_BYTES);
    expect(() => parsePipeline(text, 'p.yml')).toThrow(
      `p.yml: the steps come to 169 KiB once their aliases are expanded; at most ${MAX_STEPS_JSON_BYTES / 1024} KiB fit in the build's state data (Step Functions' 256 KiB per state)`,
    );
  });

  test('a file that does not exist is an InvalidPipeline naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipeline-'));
    try {
      await expect(loadPipelineFile(join(dir, 'nope.yml'))).rejects.toThrow(`${join(dir, 'nope.yml')}: the file does not exist`);
      writeFileSync(join(dir, 'p.yml'), steps(2));
      expect((await loadPipelineFile(join(dir, 'p.yml'))).steps.map((s) => s.line)).toEqual([3, 4]);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});

describe('validatePipelineData (data that did not come from YAML text)', () => {
  test('numbers and booleans in env become their text; a single command string becomes a list', () => {
    const result = validatePipelineData({ version: 1, steps: [{ name: 'a', image: 'alpine', commands: 'true', env: { N: 3, B: false } }] });
    expect(result.ok && result.pipeline.steps[0]).toMatchObject({ env: { N: '3', B: 'false' }, commands: ['true'] });
  });

  test('reports every problem by path', () => {
    const result = validatePipelineData({ version: 1, steps: [{ name: 'a', image: 'alpine', commands: ['x'], timeout: '0s', pull: 'maybe' }] });
    expect(result.ok ? [] : result.problems.map((p) => p.path.join('.'))).toEqual(['steps.0.pull', 'steps.0.timeout']);
  });
});
