import { checkPipeline } from './parse.js';
import { validatePipelineData } from './validate.js';
import { DEFAULT_SERVICE_START_GRACE_SECONDS, reservedServiceNameProblem, stepServices } from './services.js';
import type { Service } from './types.js';
import { parseImageReference } from './index.js';

const step = (extra: Record<string, unknown> = {}) => ({ name: 'test', image: 'node:22-alpine', commands: ['npm test'], ...extra });
const db = { name: 'db', image: 'postgres:16-alpine', env: { POSTGRES_PASSWORD: 'test' }, ports: [5432] };

function pipeline(data: Record<string, unknown>) {
  const result = validatePipelineData({ version: 1, checkout: false, ...data });
  if (!result.ok) throw new Error(result.problems.map((p) => `${p.path.join('.')}: ${p.message}`).join('\n'));
  return result.pipeline;
}

function problems(data: Record<string, unknown>): string[] {
  const result = validatePipelineData({ version: 1, checkout: false, ...data });
  return result.ok ? [] : result.problems.map((p) => `${p.path.join('.')}: ${p.message}`);
}

describe('services in the normal form', () => {
  it('gives each step the pipeline services first, then its own, with the defaults filled in', () => {
    const { steps } = pipeline({
      services: [db],
      steps: [step({ services: [{ name: 'cache', image: 'redis:7-alpine', pull: 'always' }] }), step({ name: 'lint' })],
    });
    expect(steps[0]?.services).toEqual<Service[]>([
      { name: 'db', image: 'postgres:16-alpine', imageRef: parseImageReference('postgres:16-alpine'), env: { POSTGRES_PASSWORD: 'test' }, ports: [5432], secrets: [], pull: 'if-not-present' },
      { name: 'cache', image: 'redis:7-alpine', imageRef: parseImageReference('redis:7-alpine'), env: {}, ports: [], secrets: [], pull: 'always' },
    ]);
    expect(steps[1]?.services?.map((s) => s.name)).toEqual(['db']);
  });

  it('leaves `services` out of a step that has none, and says nothing of the grace unless given', () => {
    const data = pipeline({ services: [], steps: [step({ services: [] })] });
    expect(data.steps[0]).not.toHaveProperty('services');
    expect(data).not.toHaveProperty('serviceStartGraceSeconds');
  });

  it('reads service-start-grace as a duration', () => {
    expect(pipeline({ 'service-start-grace': '5m', steps: [step()] }).serviceStartGraceSeconds).toBe(300);
    expect(DEFAULT_SERVICE_START_GRACE_SECONDS).toBe(120);
  });

  it('keeps the line each service was written on, the shared ones at their own place', () => {
    const text = [
      'version: 1',
      'checkout: false',
      'services:',
      '  - name: db',
      '    image: postgres:16-alpine',
      'steps:',
      '  - name: test',
      '    image: node:22-alpine',
      '    commands: [npm test]',
      '    services:',
      '      - name: cache',
      '        image: redis:7-alpine',
      '',
    ].join('\n');
    const checked = checkPipeline(text, 'ci.yml');
    expect(checked.ok && checked.pipeline.steps[0]?.services?.map((s) => [s.name, s.line])).toEqual([
      ['db', 4],
      ['cache', 11],
    ]);
  });
});

describe('a service\'s entrypoint and command', () => {
  const first = (given: Record<string, unknown>) => pipeline({ services: [{ ...db, ...given }], steps: [step()] }).steps[0]?.services?.[0];

  it.each<[string, Record<string, unknown>, Pick<Service, 'entrypoint' | 'command'>]>([
    ['neither: the image\'s own', {}, {}],
    ['command as a list', { command: ['postgres', '-c', 'fsync=off'] }, { command: ['postgres', '-c', 'fsync=off'] }],
    ['one word as text', { command: 'postgres' }, { command: ['postgres'] }],
    ['both', { entrypoint: ['sh', '-c'], command: ['exec postgres -c fsync=off'] }, { entrypoint: ['sh', '-c'], command: ['exec postgres -c fsync=off'] }],
    ['entrypoint alone, as text', { entrypoint: '/usr/local/bin/redis-server' }, { entrypoint: ['/usr/local/bin/redis-server'] }],
    ['numbers and booleans given as data become their text', { command: ['--port', 6380, '--appendonly', true] }, { command: ['--port', '6380', '--appendonly', 'true'] }],
    ['an empty argument is an argument', { command: ['--password', ''] }, { command: ['--password', ''] }],
  ])('%s', (_, given, expected) => {
    const service = first(given);
    expect({ entrypoint: service?.entrypoint, command: service?.command }).toEqual({ entrypoint: undefined, command: undefined, ...expected });
  });

  it('keeps the words YAML would read as numbers as they are written', () => {
    const text = [
      'version: 1',
      'checkout: false',
      'services:',
      '  - name: cache',
      '    image: redis:7-alpine',
      '    command: [redis-server, --port, 6380, --maxmemory-samples, 1.10]',
      '    env: { REDIS_VERSION: 7.10 }',
      'steps:',
      '  - name: test',
      '    image: node:22-alpine',
      '    commands: [npm test]',
      '    services:',
      '      - name: mq',
      '        image: rabbitmq:4',
      '        entrypoint: 0x10',
      '',
    ].join('\n');
    const checked = checkPipeline(text, 'ci.yml');
    const [cache, mq] = checked.ok ? (checked.pipeline.steps[0]?.services ?? []) : [];
    expect(cache?.command).toEqual(['redis-server', '--port', '6380', '--maxmemory-samples', '1.10']);
    expect(cache?.env).toEqual({ REDIS_VERSION: '7.10' });
    expect(mq?.entrypoint).toEqual(['0x10']);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a line with spaces as text', { command: 'redis-server --port 6380' }, 'services.0.command: "redis-server --port 6380" would be one word with spaces in it (no shell splits it); write the words as a list, e.g. [redis-server, --port, "6380"]'],
    ['an entrypoint with spaces as text', { entrypoint: 'sh -c' }, 'services.0.entrypoint: "sh -c" would be one word with spaces in it (no shell splits it); write the words as a list, e.g. [sh, -c]'],
    ['an empty list', { command: [] }, 'services.0.command: must list at least one word; leave command out to keep the image\'s own'],
    ['a map', { entrypoint: { sh: '-c' } }, 'services.0.entrypoint: must be a list of words (e.g. [sh, -c]) or one word, not a map'],
    ['a list in the list', { command: ['a', ['b']] }, 'services.0.command.1: each word must be text, not a list'],
    ['no program', { entrypoint: ['', '-c'] }, 'services.0.entrypoint.0: the first word is the program to run and must not be empty'],
    ['the step\'s key', { commands: ['redis-server'] }, 'services.0.commands: unknown field "commands" (did you mean "command"?)'],
  ])('refuses %s', (_, given, expected) => {
    expect(problems({ services: [{ ...db, ...given }], steps: [step()] })).toEqual([expected]);
  });

  it('names the line of a wrong command', () => {
    const text = ['version: 1', 'checkout: false', 'steps:', '  - name: test', '    image: node:22-alpine', '    commands: [npm test]', '    services:', '      - name: db', '        image: postgres:16', '        command: postgres -c fsync=off', ''].join('\n');
    const checked = checkPipeline(text, 'ci.yml');
    expect(checked.ok ? [] : checked.problems.map((p) => p.message)).toEqual(['ci.yml line 10: step "test": services[0].command: "postgres -c fsync=off" would be one word with spaces in it (no shell splits it); write the words as a list, e.g. [redis-server, --port, "6380"]']);
  });
});

describe('services refused', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['a name twice in one list', { services: [db, { ...db, ports: [] }], steps: [step()] }, ['services.1.name: the name "db" is already used by services[0]; a step\'s services (the pipeline\'s and its own) need names of their own']],
    [
      'a port of the pipeline\'s services again in a step\'s own',
      { services: [db], steps: [step({ services: [{ name: 'other', image: 'postgres:15', ports: [5432] }] })] },
      ['steps.0.services.0.ports.0: port 5432 is also listed by the pipeline\'s services[0]; a step\'s services share its pod\'s network, so each port can be one service\'s only'],
    ],
    ['a port twice in one service', { services: [{ ...db, ports: [5432, 5432] }], steps: [step()] }, ['services.0.ports.1: port 5432 is listed twice']],
    ['port 0', { services: [{ ...db, ports: [0] }], steps: [step()] }, ['services.0.ports.0: 0 is not a TCP port; ports are 1 to 65535']],
    ['a port as text', { services: [{ ...db, ports: ['5432/tcp'] }], steps: [step()] }, ['services.0.ports.0: each port must be a whole number from 1 to 65535, not the text "5432/tcp"']],
    [
      'a variable from env and a secret',
      { services: [{ ...db, secrets: [{ env: 'POSTGRES_PASSWORD', secret: 'ci-db', key: 'password' }] }], steps: [step()] },
      ['services.0.secrets.0.env: "POSTGRES_PASSWORD" is also set in env; a variable comes either from env or from a secret, not both'],
    ],
    ['a name that is no DNS label', { services: [{ ...db, name: 'my_db' }], steps: [step()] }, ['services.0.name: "my_db" must use only lowercase letters, digits and "-", and start and end with a letter or digit (e.g. "my-db")']],
    ['no image', { services: [{ name: 'db' }], steps: [step()] }, ['services.0.image: missing (every service needs an image)']],
    ['services as a map', { services: { db }, steps: [step()] }, ['services: must be a list of services (each starting with "- name:"), not a map']],
    ['a service as text', { steps: [step({ services: ['postgres'] })] }, ['steps.0.services.0: each service must be a map (name, image, command, env, ports, ...), not the text "postgres"']],
    ['a key no service has', { services: [{ ...db, workdir: '/srv' }], steps: [step()] }, ['services.0.workdir: unknown field "workdir" (expected one of: name, image, entrypoint, command, env, ports, secrets, pull)']],
  ])('%s', (_, data, expected) => {
    expect(problems(data)).toEqual(expected);
  });

  it.each([
    ['step', true],
    ['clone', true],
    ['port-5432', true],
    ['step-runner-cache-save', true],
    ['step-runner-anything', true],
    ['db', false],
    ['step-runner', false],
    ['port', false],
  ])('the name %s is taken by the pod: %s', (name, taken) => {
    expect(reservedServiceNameProblem(name) !== undefined).toBe(taken);
  });
});

describe('stepServices', () => {
  const a: Service = { name: 'a', image: 'x:1', imageRef: parseImageReference('x:1'), env: {}, ports: [], secrets: [], pull: 'if-not-present' };
  const b: Service = { ...a, name: 'b' };
  it.each<[Service[] | undefined, Service[] | undefined, Service[] | undefined]>([
    [undefined, undefined, undefined],
    [[], [], undefined],
    [[a], undefined, [a]],
    [[a], [b], [a, b]],
    [undefined, [b], [b]],
  ])('%j + %j', (shared, own, expected) => {
    expect(stepServices(shared, own)).toEqual(expected);
  });
});
