import { InvalidPipeline } from './errors.js';
import { inputVariable, inputVariables, parseInputAssignment, resolveInputs, type PipelineInput } from './inputs.js';
import { parsePipeline } from './parse.js';

const file = (inputs: string) => `version: 1\n${inputs}\nsteps:\n  - name: test\n    image: alpine:3.20\n    commands: ['true']\n`;

describe('inputs in the pipeline file', () => {
  test.each([
    ['inputs:\n  - name: target', [{ name: 'target', required: false }]],
    [
      'inputs:\n  - name: target\n    description: where to deploy\n    default: staging\n    required: true\n    choices: [staging, production]',
      [{ name: 'target', description: 'where to deploy', default: 'staging', required: true, choices: ['staging', 'production'] }],
    ],
    ['inputs:\n  - name: retries\n    default: 3\n    choices: [1, 3, 1.10]', [{ name: 'retries', default: '3', required: false, choices: ['1', '3', '1.10'] }]],
    ['inputs: []', []],
  ])('%j reads as %j', (text, inputs) => {
    expect(parsePipeline(file(text), 'ci.yml').inputs).toEqual(inputs);
  });

  it('is absent when the file says nothing', () => {
    expect(parsePipeline(file(''), 'ci.yml').inputs).toBeUndefined();
  });

  test.each([
    ['inputs:\n  - name: 1st', 3, /ci\.yml line 3: inputs\[0\]\.name: "1st" is not a valid input name/],
    ['inputs:\n  - description: x', 3, /inputs\[0\]\.name: missing \(every input needs a name\)/],
    ['inputs:\n  - name: a\n    choise: [x]', 4, /unknown field "choise" \(did you mean "choices"\?\)/],
    ['inputs:\n  - name: a\n    default: z\n    choices: [x, y]', 4, /inputs\[0\]\.default: "z" is not one of its choices \("x", "y"\)/],
    ['inputs:\n  - name: a\n    choices: []', 4, /inputs\[0\]\.choices: must list at least one value/],
    ['inputs:\n  - name: a\n    choices: [x, x]', 4, /lists "x" twice/],
    ['inputs:\n  - name: a\n  - name: a', 4, /the input "a" is declared twice/],
    ['inputs:\n  - name: dry-run\n  - name: DRY_RUN', 4, /"DRY_RUN" and "dry-run" would both be CI_INPUT_DRY_RUN/],
    ['inputs:\n  - name: a\n    required: yes', 4, /required: must be true or false/],
    ['inputs:\n  target: staging', 2, /inputs: must be a list of inputs/],
  ])('%j is refused on line %i', (text, line, message) => {
    let error: unknown;
    try {
      parsePipeline(file(text), 'ci.yml');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidPipeline);
    expect((error as InvalidPipeline).message).toMatch(message);
    expect((error as InvalidPipeline).location.line).toBe(line);
  });
});

describe("a build's inputs", () => {
  const declared: PipelineInput[] = [
    { name: 'target', description: 'where to deploy', required: true, choices: ['staging', 'production'] },
    { name: 'dry-run', default: 'true', required: false, choices: ['true', 'false'] },
    { name: 'note', required: false },
  ];

  test.each([
    ['the values given', { target: 'production', 'dry-run': 'false', note: 'hi' }, { target: 'production', 'dry-run': 'false', note: 'hi' }],
    ['defaults, and empty for the rest', { target: 'staging' }, { target: 'staging', 'dry-run': 'true', note: '' }],
    ['a value with "=" and spaces', { target: 'staging', note: 'a = b c' }, { target: 'staging', 'dry-run': 'true', note: 'a = b c' }],
  ])('%s', (_what, given, values) => {
    expect(resolveInputs(declared, given)).toEqual({ ok: true, values });
  });

  test.each([
    ['a required input missing', {}, [{ input: 'target', message: 'input "target" is required (where to deploy), and no value was given' }]],
    ['a value outside its choices', { target: 'prod' }, [{ input: 'target', message: 'input "target": "prod" is not one of its choices ("staging", "production")' }]],
    ['an input the pipeline does not declare', { target: 'staging', colour: 'red' }, [{ input: 'colour', message: 'input "colour": the pipeline declares no such input; its inputs are target, dry-run, note' }]],
    ['a value too long', { target: 'staging', note: 'x'.repeat(1025) }, [{ input: 'note', message: 'input "note" is 1025 characters long; at most 1024 are allowed' }]],
  ])('refuses %s, naming the input', (_what, given, problems) => {
    expect(resolveInputs(declared, given)).toEqual({ ok: false, problems });
  });

  it('runs a build no one gave inputs to (a push) with the defaults, even without a required one', () => {
    expect(resolveInputs(declared, undefined)).toEqual({ ok: true, values: { target: '', 'dry-run': 'true', note: '' } });
  });

  it('refuses any input given to a pipeline that declares none', () => {
    expect(resolveInputs(undefined, { a: '1' })).toEqual({
      ok: false,
      problems: [{ input: 'a', message: 'input "a": the pipeline declares no such input; it declares none (`inputs:` at the top of the file)' }],
    });
  });

  test.each([
    ['target', 'CI_INPUT_TARGET'],
    ['dry-run', 'CI_INPUT_DRY_RUN'],
    ['nodeVersion', 'CI_INPUT_NODEVERSION'],
    ['_x', 'CI_INPUT__X'],
  ])('%s is seen as %s', (name, variable) => {
    expect(inputVariable(name)).toBe(variable);
  });

  it('gives the steps each value under its variable', () => {
    expect(inputVariables({ 'dry-run': 'true', target: 'staging' })).toEqual({ CI_INPUT_DRY_RUN: 'true', CI_INPUT_TARGET: 'staging' });
  });

  test.each([
    ['target=staging', { name: 'target', value: 'staging' }],
    ['note=a=b', { name: 'note', value: 'a=b' }],
    ['note=', { name: 'note', value: '' }],
    ['=x', { problem: '"=x" is not NAME=VALUE' }],
    ['target', { problem: '"target" is not NAME=VALUE' }],
    ['1x=y', { problem: '"1x" is not a valid input name: use letters, digits, "_" and "-", starting with a letter or "_"' }],
  ])('the command line\'s %j', (text, parsed) => {
    expect(parseInputAssignment(text)).toEqual(parsed);
  });
});
