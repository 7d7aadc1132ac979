/**
 * Hostile pipeline files: whatever the text, validation answers with InvalidPipeline or
 * InvalidImage naming the file (and the field, where there is one), never with a crash; and what
 * it accepts can reach a pod only as data: step names and build ids go into labels and
 * annotations, never into the script, and the script's echo of each command runs nothing.
 *
 * Corpora: test/fixtures/hostile/*.yml (alias and merge-key bombs, 5000-deep flow and 3000-deep
 * block nesting, a 314 KiB file, NUL/escape bytes, unicode and shell metacharacters in names and
 * images, wrong types, __proto__/constructor keys), plus fast-check over arbitrary text,
 * YAML-flavoured token soup, and valid pipelines with one field made wrong.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { checkPipeline, parsePipeline } from '../lib/pipeline/index.js';
import { expandReferences } from '../lib/emulators/kubernetes/container-command.js';
import { stepPodManifest } from '../lib/kube/index.js';
import { shellQuote } from '../lib/kube/step-script.js';
import { InvalidImage, InvalidPipeline } from '../lib/pipeline/index.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/hostile/', import.meta.url));

/** Parses; returns the error, which must be one of the two named classes. */
function rejection(text: string, file = 'hostile.yml'): InvalidPipeline | InvalidImage | undefined {
  try {
    parsePipeline(text, file);
    return undefined;
  } catch (error) {
    if (error instanceof InvalidPipeline || error instanceof InvalidImage) return error;
    throw new Error(`not a named pipeline error: ${(error as Error)?.stack ?? String(error)}`);
  }
}

describe('the hostile fixtures', () => {
  const expected: Record<string, { field?: string; says: RegExp }> = {
    'billion-laughs.yml': { says: /alias bomb/ },
    'merge-bomb.yml': { says: /alias bomb/ },
    'deep-flow.yml': { says: /nested too deeply/ },
    'deep-block.yml': { says: /nested too deeply/ },
    'huge.yml': { says: /at most 64 KiB/ },
    'binary.yml': { field: 'name', says: /lowercase letters/ },
    'injection-names.yml': { field: 'name', says: /"\$\(touch \/tmp\/pwned\)" must use only/ },
    'unicode-names.yml': { field: 'name', says: /"bÿgg-ステップ" must use only/ },
    'wrong-types.yml': { field: 'version', says: /must be 1/ },
    'proto-keys.yml': { field: 'version', says: /missing/ },
  };

  it('covers every fixture file', () => {
    expect(readdirSync(FIXTURES).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))('%s is refused with a named error that says where and why', (file, { field, says }) => {
    const error = rejection(readFileSync(`${FIXTURES}${file}`, 'utf8'), file);
    expect(error).toBeDefined();
    expect(error!.message.startsWith(`${file}`)).toBe(true);
    expect(error!.message).toMatch(says);
    if (field) expect((error as InvalidPipeline).location?.field).toBe(field);
    expect(error!.message).not.toMatch(/\n\s+at /);
  });

  it('lists every unsafe name and image of the injection file, each by its field', () => {
    const error = rejection(readFileSync(`${FIXTURES}injection-names.yml`, 'utf8')) as InvalidPipeline;
    const fields = error.problems.map((p) => `${p.location.step}.${p.location.field}`);
    expect(fields).toEqual(['$(touch /tmp/pwned).name', 'a;rm -rf /.name', 'a;rm -rf /.image', '`id`.name']);
  });
});

const YAML_TOKENS = [
  'version: 1', 'steps:', '  - name: a', '    image: alpine:3.20', '    commands: [echo]', '&a', '*a', '<<: *a', '[', ']', '{', '}',
  '- ', ': ', '"', "'", '\n', '  ', '\t', '---', '...', '!!binary', '!!js/function', '? ', '|', '>', '#', '%YAML 1.1', '\u0000', '\uFEFF', '\u202E',
  '__proto__:', 'constructor:', '$(id)', '`id`', ';', '&&', '\\', '1e999', '-0', '0x1F', '~', 'null', '.nan',
];

describe('any text at all', () => {
  it('is either a pipeline or a named error that starts with the file name', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 400 }),
      fc.array(fc.constantFrom(...YAML_TOKENS), { maxLength: 60 }).map((tokens) => tokens.join('')),
      fc.array(fc.constantFrom(...YAML_TOKENS), { maxLength: 30 }).map((tokens) => `version: 1\nsteps:\n  - ${tokens.join('')}`),
    );
    fc.assert(
      fc.property(text, (source) => {
        expect(() => checkPipeline(source, 'p.yml')).not.toThrow();
        const error = rejection(source, 'p.yml');
        if (error) expect(error.message.startsWith('p.yml')).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

const validStep = fc.record({
  name: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/),
  image: fc.constantFrom('alpine:3.20', 'node:22-alpine', 'ghcr.io/team/app:1.2.3'),
  commands: fc.array(fc.string({ minLength: 1, maxLength: 40 }).filter((c) => c.trim() !== ''), { minLength: 1, maxLength: 3 }),
});
const wrongValue = fc.oneof(
  fc.constant(null), fc.integer(), fc.boolean(), fc.constant([]), fc.constant({ nested: { deeper: [1, 2] } }),
  fc.constantFrom('$(reboot)', '`id`', 'a;b', 'ÄÖÜ', '\u0000', 'x'.repeat(300), '../../etc/passwd'),
);
const FIELDS = ['name', 'image', 'commands', 'env', 'pull', 'timeout', 'resources', 'secrets'] as const;

describe('a valid pipeline with one field made wrong', () => {
  it('is refused with an error naming that field of that step', () => {
    const NUM_RUNS = 300;
    /** Fields whose wrong value was refused, and that were judged: a run that refused nothing proves nothing. */
    const refused = new Map<string, number>();
    fc.assert(
      fc.property(fc.uniqueArray(validStep, { minLength: 1, maxLength: 3, selector: (s) => s.name }), fc.nat(), fc.constantFrom(...FIELDS), wrongValue, (steps, pick, field, value) => {
        const index = pick % steps.length;
        const broken = steps.map((step, i) => (i === index ? { ...step, [field]: value } : step));
        const error = rejection(stringify({ version: 1, steps: broken }));
        // Some "wrong" values are fine where they land (a number as a step name is not).
        if (error === undefined) return;
        refused.set(field, (refused.get(field) ?? 0) + 1);
        const problems = error instanceof InvalidPipeline ? error.problems : [{ message: error.message, location: error.location! }];
        expect(problems.some((p) => p.location.field?.split(/[.[]/)[0] === field)).toBe(true);
        expect(problems.every((p) => p.message.startsWith('hostile.yml'))).toBe(true);
      }),
      { numRuns: NUM_RUNS },
    );
    // Most generated cases are refusals, and every field had some: the assertions above ran.
    const total = [...refused.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(NUM_RUNS / 2);
    expect([...refused.keys()].sort()).toEqual([...FIELDS].sort());
  });
});

describe('what an accepted pipeline puts in a pod', () => {
  it('keeps names and build ids out of the script and runs each command exactly as written', () => {
    const other = { buildId: 'another-build-$(reboot)', name: 'another-step' };
    fc.assert(
      fc.property(validStep, fc.string({ minLength: 1, maxLength: 60 }), (step, buildId) => {
        const pipeline = parsePipeline(stringify({ version: 1, steps: [step] }), 'p.yml');
        const pod = stepPodManifest({ buildId, step: pipeline.steps[0]!, namespace: 'ci' });
        const container = pod.spec!.containers[0]!;
        expect(container.command).toHaveLength(3);
        expect(container.command!.slice(0, 2)).toEqual(['/bin/sh', '-c']);
        expect(container.args).toBeUndefined();
        expect(pod.metadata!.annotations).toMatchObject({ 'step-runner.dev/build-id': buildId, 'step-runner.dev/step-name': step.name });
        // The script is a function of the commands alone: another build id and step name give the
        // very same script. Whatever they hold (say "$(reboot)"), they are only metadata.
        const elsewhere = stepPodManifest({ buildId: other.buildId, step: { ...pipeline.steps[0]!, name: other.name }, namespace: 'ci' });
        expect(elsewhere.spec!.containers[0]!.command).toEqual(container.command);
        // Each command is in it as written, on lines of its own, in order, once the kubelet has
        // expanded $(VAR) and $$ against the container's env, as it does before the shell starts.
        const script = expandReferences(container.command![2]!, {});
        let from = 0;
        for (const command of step.commands) {
          const at = script.indexOf(`\n${command}\n`, from);
          expect({ command, found: at >= 0 }).toEqual({ command, found: true });
          from = at + command.length + 1;
        }
        // And nothing else reaches the process.
        expect(container.env).toEqual([]);
        expect(pod.spec!.initContainers).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('echoes any command verbatim without running any of it', () => {
    const nasty = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.array(fc.constantFrom("'", '"', '`', '$(', ')', '${X}', '\\', '\n', ';', '&&', '|', '#', '%s', '*', '~', 'touch pwned'), { maxLength: 20 }).map((parts) => parts.join('')),
    );
    const NUM_RUNS = 200;
    let echoed = 0;
    fc.assert(
      fc.property(nasty, (command) => {
        // A NUL cannot be passed in an argument to a process at all.
        fc.pre(!command.includes('\u0000'));
        echoed++;
        const result = spawnSync('/bin/sh', ['-c', `printf '%s\\n' ${shellQuote(`+ ${command}`)}`], { encoding: 'utf8', cwd: FIXTURES });
        expect(result.stdout).toBe(`+ ${command}\n`);
      }),
      { numRuns: NUM_RUNS },
    );
    // fc.pre skips cases; the property held for (nearly) all the runs asked for, not for none.
    expect(echoed).toBeGreaterThanOrEqual(NUM_RUNS * 0.9);
  });
});
