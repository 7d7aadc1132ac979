import { parsePipeline } from '../../pipeline/index.js';
import { envOptions } from './env-args.js';
import { parseRunArgs, RUN_HELP } from './run-args.js';
import { parseSecretFile, resolveSecretValues, secretArgument } from './secret-args.js';

const PIPELINE = parsePipeline(
  `version: 1
checkout: false
steps:
  - name: deploy
    image: alpine:3.20
    commands: [./deploy]
    secrets:
      - { env: DB_PASSWORD, secret: ci-db, key: password }
      - { env: TLS_CERT, secret: ci-tls, key: cert }
`,
  'p.yml',
);

describe('--secret', () => {
  it('splits SECRET/KEY from the value at the first "=", so a value may hold "="', () => {
    expect(secretArgument('ci-db/password=a=b=', '--secret')).toEqual({ secret: 'ci-db', key: 'password', value: 'a=b=', givenBy: '--secret' });
    expect(secretArgument('ci-db/password', '--secret')).toEqual({ secret: 'ci-db', key: 'password', givenBy: '--secret' });
  });

  it('refuses what is no SECRET/KEY, naming it', () => {
    expect(() => parseRunArgs(['p.yml', '--secret', 'password=x'])).toThrow('--secret password: expected SECRET/KEY=VALUE or SECRET/KEY, got "password"');
    expect(() => parseRunArgs(['p.yml', '--secret', 'CI_DB/password=x'])).toThrow('"CI_DB" is not a valid Kubernetes Secret name');
  });

  it('takes a value without "=" from the variable the pipeline reads it as, and says which one is unset', () => {
    const given = [secretArgument('ci-db/password', '--secret ci-db/password')];
    expect(resolveSecretValues(given, PIPELINE, { DB_PASSWORD: 's3cret' })).toEqual([{ secret: 'ci-db', key: 'password', value: 's3cret' }]);
    expect(() => resolveSecretValues(given, PIPELINE, {})).toThrow('--secret ci-db/password: takes its value from $DB_PASSWORD, which is not set; give it as --secret ci-db/password=VALUE');
  });

  it('refuses a secret the pipeline does not read, listing those it does', () => {
    const given = [secretArgument('ci-db/pasword=x', '--secret ci-db/pasword')];
    expect(() => resolveSecretValues(given, PIPELINE, {})).toThrow('the pipeline reads no secret ci-db/pasword (it reads ci-db/password, ci-tls/cert)');
  });

  it('lets a later value win, so a --secret after the files overrides them', () => {
    const given = [secretArgument('ci-db/password=from-file', 'f:1'), secretArgument('ci-db/password=from-flag', '--secret')];
    expect(resolveSecretValues(given, PIPELINE, {})).toEqual([{ secret: 'ci-db', key: 'password', value: 'from-flag' }]);
  });
});

describe('--secret-file', () => {
  it('reads SECRET/KEY=VALUE lines, skipping blank lines and comments, with JSON strings for newlines', () => {
    const text = '# the staging values\n\nci-db/password=p@ss=word \n  ci-tls/cert="-----BEGIN-----\\nMIIB\\n-----END-----"\r\nci-db/user\n';
    expect(parseSecretFile(text, 'secrets.env')).toEqual([
      { secret: 'ci-db', key: 'password', value: 'p@ss=word ', givenBy: 'secrets.env:3' },
      { secret: 'ci-tls', key: 'cert', value: '-----BEGIN-----\nMIIB\n-----END-----', givenBy: 'secrets.env:4' },
      { secret: 'ci-db', key: 'user', givenBy: 'secrets.env:5' },
    ]);
  });

  it('names the line of a value in quotes that is no JSON string', () => {
    expect(() => parseSecretFile('ci-db/password="a\\qb"', 'secrets.env')).toThrow('secrets.env:1: a value in double quotes must be a JSON string');
  });
});

describe('--env', () => {
  it('takes NAME=VALUE, the value after the first "="', () => {
    expect(envOptions(['GREETING=hello=world', 'EMPTY='])).toEqual({ GREETING: 'hello=world', EMPTY: '' });
    expect(parseRunArgs(['p.yml', '--env', 'A=1', '--env', 'B=2'])).toMatchObject({ env: { A: '1', B: '2' } });
  });

  it('refuses a name that is no environment variable name, or one the runner sets, naming it', () => {
    expect(() => envOptions(['1X=a'])).toThrow('--env "1X" is not a valid environment variable name');
    expect(() => envOptions(['GREETING'])).toThrow('--env takes NAME=VALUE, got "GREETING"');
    expect(() => envOptions(['CI_BRANCH=main'])).toThrow('--env CI_BRANCH: the runner sets CI_BRANCH itself');
  });
});

it('run --help says how to give secrets and variables', () => {
  for (const option of ['--env NAME=VALUE', '--secret SECRET/KEY=VALUE', '--secret-file FILE']) expect(RUN_HELP).toContain(`\n  ${option}`);
});
