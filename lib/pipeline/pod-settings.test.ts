/**
 * `pull-secrets`, `node-selector` and `tolerations`: what a file may say, how it reads, and the
 * line-precise problems it gets otherwise (Kubernetes' own rules, said before any pod exists).
 */
import { readPipelineText as read } from '../../test/fixtures/pipeline-text.js';
import { labelKeyProblem, labelValueProblem } from './names.js';
import { checkPipeline } from './parse.js';
import { checkNodeSelector, checkPullSecrets, checkTolerations } from './setting-checks.js';

const STEP = `  - name: build
    image: alpine:3.20
    commands: [make]
`;

function problems(text: string): { message: string; line?: number; field?: string; step?: string }[] {
  const result = checkPipeline(text, 'ci.yml');
  if (result.ok) throw new Error('expected problems');
  return result.problems.map((p) => ({ message: p.message, line: p.location.line, field: p.location.field, step: p.location.step }));
}

describe('pull-secrets', () => {
  it.each([
    ['one name', 'pull-secrets: [regcred]', ['regcred']],
    ['several, a repeat once', 'pull-secrets: [regcred, ghcr-login, regcred]', ['regcred', 'ghcr-login']],
    ['a dotted name', 'pull-secrets: [registry.example.com]', ['registry.example.com']],
    ['an empty list: none', 'pull-secrets: []', undefined],
  ])('reads %s', (_name, line, expected) => {
    expect(read(`version: 1\n${line}\nsteps:\n${STEP}`).pullSecrets).toEqual(expected);
  });

  it.each([
    ['an upper-case name', 'pull-secrets: [RegCred]', 'ci.yml line 2: pull-secrets[0]: "RegCred" is not a valid Kubernetes Secret name'],
    ['an underscore', 'pull-secrets:\n  - ok\n  - my_secret', 'ci.yml line 4: pull-secrets[1]: "my_secret" is not a valid Kubernetes Secret name'],
    ['an empty name', 'pull-secrets: [""]', 'ci.yml line 2: pull-secrets[0]: must not be empty'],
    ['a number', 'pull-secrets: [42]', 'ci.yml line 2: pull-secrets[0]: must be text, not the number 42'],
    ['a single name, not a list', 'pull-secrets: regcred', 'ci.yml line 2: pull-secrets: must be a list of Secret names'],
    ['a step-level key', `steps:\n${STEP}    pull-secrets: [x]`, 'ci.yml line 6: step "build": unknown field "pull-secrets"'],
    ["Kubernetes' spelling", 'imagePullSecrets: [regcred]', 'ci.yml line 2: unknown field "imagePullSecrets" (did you mean "pull-secrets"?)'],
  ])('refuses %s', (_name, lines, message) => {
    const text = lines.startsWith('steps:') ? `version: 1\n${lines}\n` : `version: 1\n${lines}\nsteps:\n${STEP}`;
    expect(problems(text)[0]?.message).toContain(message);
  });
});

describe('node-selector and tolerations', () => {
  it('reads them into Kubernetes\' shape, label values as written', () => {
    const [step] = read(`version: 1
steps:
${STEP}    node-selector:
      kubernetes.io/arch: arm64
      gpu: true
      tier: 2
      empty: ""
    tolerations:
      - key: dedicated
        value: ci
        effect: NoSchedule
      - key: spot
        operator: Exists
      - operator: Exists
      - key: node.kubernetes.io/unreachable
        operator: Exists
        effect: NoExecute
        toleration-seconds: 30
      - key: version
        value: 1.10
`).steps;
    expect(step?.nodeSelector).toEqual({ 'kubernetes.io/arch': 'arm64', gpu: 'true', tier: '2', empty: '' });
    expect(step?.tolerations).toEqual([
      { key: 'dedicated', operator: 'Equal', value: 'ci', effect: 'NoSchedule' },
      { key: 'spot', operator: 'Exists' },
      { operator: 'Exists' },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 },
      { key: 'version', operator: 'Equal', value: '1.10' },
    ]);
  });

  it('leaves a step without them as it was', () => {
    const [step] = read(`version: 1\nsteps:\n${STEP}    node-selector: {}\n    tolerations: []\n`).steps;
    expect(step).not.toHaveProperty('nodeSelector');
    expect(step).not.toHaveProperty('tolerations');
  });

  it.each([
    ['a key with two slashes', 'node-selector: { a/b/c: x }', 6, 'node-selector.a/b/c', '"a/b/c" is not a valid label key: at most one "/"'],
    ['a key with a space', 'node-selector: { "disk type": ssd }', 6, 'node-selector.disk type', '"disk type" is not a valid label key: its name must use only letters, digits'],
    ['an upper-case prefix', 'node-selector: { Example.com/x: y }', 6, 'node-selector.Example.com/x', 'its prefix (before "/") must be a DNS subdomain'],
    ['a name past 63 characters', `node-selector: { ${'n'.repeat(64)}: y }`, 6, `node-selector.${'n'.repeat(64)}`, 'its name is 64 characters long; at most 63'],
    ['a value with a space', 'node-selector: { zone: "eu west" }', 6, 'node-selector.zone', '"eu west" is not a valid label value'],
    ['a value ending in "-"', 'node-selector: { zone: eu- }', 6, 'node-selector.zone', '"eu-" is not a valid label value'],
    ['a value with no value', 'node-selector: { zone: }', 6, 'node-selector.zone', 'has no value; write "" for an empty one'],
    ['a list for the selector', 'node-selector: [zone]', 6, 'node-selector', 'must be a map of node label: value'],
    ['a map for the tolerations', 'tolerations: { key: x }', 6, 'tolerations', 'must be a list of tolerations'],
    ['an unknown operator', 'tolerations: [{ key: x, operator: In }]', 6, 'tolerations[0].operator', 'must be Equal or Exists, not the text "In"'],
    ['an unknown effect', 'tolerations: [{ key: x, effect: NoExecution }]', 6, 'tolerations[0].effect', 'must be one of NoSchedule, PreferNoSchedule, NoExecute'],
    ['a value with Exists', 'tolerations: [{ key: x, operator: Exists, value: y }]', 6, 'tolerations[0].value', 'must be left out with "operator: Exists"'],
    ['no key with Equal', 'tolerations: [{ value: y }]', 6, 'tolerations[0].key', 'missing: a toleration with operator Equal needs the taint\'s key'],
    ['seconds without NoExecute', 'tolerations: [{ key: x, effect: NoSchedule, toleration-seconds: 60 }]', 6, 'tolerations[0].toleration-seconds', 'applies to "effect: NoExecute" only'],
    ['negative seconds', 'tolerations: [{ key: x, effect: NoExecute, toleration-seconds: -1 }]', 6, 'tolerations[0].toleration-seconds', 'must be 0 or more'],
    ['a bad taint key', 'tolerations: [{ key: "-x", operator: Exists }]', 6, 'tolerations[0].key', '"-x" is not a valid label key'],
    ["Kubernetes' spelling", 'tolerations: [{ key: x, effect: NoExecute, tolerationSeconds: 5 }]', 6, undefined, 'unknown field "tolerationSeconds" (did you mean "toleration-seconds"?)'],
    ["Kubernetes' nodeSelector", 'nodeSelector: { a: b }', 6, undefined, 'unknown field "nodeSelector" (did you mean "node-selector"?)'],
  ])('refuses %s, naming the file, line, step and field', (_name, line, lineNumber, field, message) => {
    const [problem] = problems(`version: 1\nsteps:\n${STEP}    ${line}\n`);
    expect(problem).toMatchObject({ line: lineNumber, step: 'build', ...(field ? { field } : {}) });
    expect(problem?.message).toContain(`ci.yml line ${lineNumber}: step "build": `);
    expect(problem?.message).toContain(message);
  });

  it('says every problem of a toleration at once, on its own line', () => {
    const found = problems(`version: 1
steps:
${STEP}    tolerations:
      - operator: Exists
        value: y
        effect: Sometimes
        toleration-seconds: 5
`);
    expect(found.map((p) => [p.line, p.field])).toEqual([
      [8, 'tolerations[0].value'],
      [9, 'tolerations[0].effect'],
      [10, 'tolerations[0].toleration-seconds'],
    ]);
  });
});

describe('label rules', () => {
  it.each([
    ['app', undefined],
    ['kubernetes.io/arch', undefined],
    ['node.kubernetes.io/instance-type', undefined],
    ['karpenter.sh/capacity-type', undefined],
    ['A_b.c-9', undefined],
    ['', 'must not be empty'],
    ['/x', 'its prefix'],
    ['example.com/', 'it needs a name after the "/"'],
    ['x_', 'its name must use only'],
  ])('label key %j', (key, problem) => {
    const found = labelKeyProblem(key);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });

  it.each([
    ['', undefined],
    ['arm64', undefined],
    ['1.10', undefined],
    ['a'.repeat(63), undefined],
    ['a'.repeat(64), 'at most 63'],
    ['_x', 'not a valid label value'],
    ['a b', 'not a valid label value'],
  ])('label value %j', (value, problem) => {
    const found = labelValueProblem(value);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });
});

describe('the deployment\'s defaults, by the same rules', () => {
  it('reads tolerations in either spelling of the seconds', () => {
    expect(checkTolerations([{ key: 'ci', operator: 'Exists', effect: 'NoSchedule' }, { key: 'x', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 9 }])).toEqual({
      ok: true,
      value: [
        { key: 'ci', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'x', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 9 },
      ],
    });
  });

  it.each([
    [checkTolerations({ key: 'x' }), 'must be a list of tolerations'],
    [checkTolerations([{ key: 'x', operator: 'Exists', value: 'v' }]), '[0].value: must be left out with "operator: Exists"'],
    [checkTolerations([{ effect: 'Never' }]), '[0].effect: must be one of'],
    [checkNodeSelector({ 'bad key': 'x' }), 'bad key: "bad key" is not a valid label key'],
    [checkNodeSelector({ zone: 'eu west' }), 'zone: "eu west" is not a valid label value'],
    [checkNodeSelector(['x']), 'must be a map of node label: value'],
    [checkPullSecrets(['Bad']), '[0]: "Bad" is not a valid Kubernetes Secret name'],
  ])('refuses, saying where: %#', (result, message) => {
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems.join('; ')).toContain(message);
  });

  it('accepts what a file could say', () => {
    expect(checkNodeSelector({ 'kubernetes.io/arch': 'arm64' })).toEqual({ ok: true, value: { 'kubernetes.io/arch': 'arm64' } });
    expect(checkPullSecrets(['a', 'b', 'a'])).toEqual({ ok: true, value: ['a', 'b'] });
  });
});
