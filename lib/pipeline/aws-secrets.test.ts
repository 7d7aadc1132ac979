/**
 * `secrets` entries that name AWS: the two forms as a file writes them, what they read as (apart
 * from the Kubernetes ones), and the line-precise problems of a wrong one, the step without an
 * identity included.
 */
import { checkPipeline } from './parse.js';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf';

function file(secrets: string, identity = '    identity: deploy\n') {
  return `version: 1
steps:
  - name: deploy
    image: alpine:3.20
    commands: [make]
${identity}    secrets:
${secrets}`;
}

function read(text: string) {
  const result = checkPipeline(text, 'ci.yml');
  if (!result.ok) throw new Error(result.problems.map((p) => p.message).join('\n'));
  return result.pipeline.steps[0]!;
}

function problems(text: string): string[] {
  const result = checkPipeline(text, 'ci.yml');
  if (result.ok) throw new Error('expected problems');
  return result.problems.map((p) => p.message);
}

describe('AWS entries of a step\'s secrets', () => {
  it('reads each form apart from the Kubernetes ones, in the order written', () => {
    const step = read(
      file(`      - { env: DB_URL, aws-secret: prod/db }
      - { env: DB_PASSWORD, aws-secret: ${ARN}, key: password }
      - { env: TOKEN, ssm-parameter: /team/app/token }
      - { env: PUBLIC, ssm-parameter: "/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64" }
      - { env: OLD, ssm-parameter: "/team/app/token:3" }
      - { env: K8S, secret: ci-db, key: password }
`),
    );
    expect(step.secrets).toEqual([{ env: 'K8S', secret: 'ci-db', key: 'password' }]);
    expect(step.awsSecrets).toEqual([
      { env: 'DB_URL', awsSecret: 'prod/db' },
      { env: 'DB_PASSWORD', awsSecret: ARN, key: 'password' },
      { env: 'TOKEN', ssmParameter: '/team/app/token' },
      { env: 'PUBLIC', ssmParameter: '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64' },
      { env: 'OLD', ssmParameter: '/team/app/token:3' },
    ]);
  });

  it('takes the pipeline\'s identity for a step without its own; a step with none has no awsSecrets', () => {
    const text = `version: 1\nidentity: deploy\nsteps:\n  - name: a\n    image: alpine:3.20\n    commands: [x]\n    secrets:\n      - { env: T, ssm-parameter: /t }\n  - name: b\n    image: alpine:3.20\n    commands: [x]\n`;
    const result = checkPipeline(text, 'ci.yml');
    if (!result.ok) throw new Error(result.problems[0]!.message);
    expect(result.pipeline.steps.map((step) => step.awsSecrets)).toEqual([[{ env: 'T', ssmParameter: '/t' }], undefined]);
  });

  it.each([
    ['a step with no identity', file('      - { env: T, aws-secret: prod/db }\n', ''), 'ci.yml line 7: step "deploy": secrets[0].aws-secret: is read from AWS with the step\'s identity, and the step has none'],
    ['an SSM parameter on a step with no identity', file('      - { env: T, ssm-parameter: /t }\n', ''), 'ci.yml line 7: step "deploy": secrets[0].ssm-parameter: is read from AWS with the step\'s identity'],
    ['a secret name with a space', file('      - { env: T, aws-secret: "prod db" }\n'), '"prod db" is not a Secrets Manager secret\'s name'],
    ['an ARN of another service', file('      - { env: T, aws-secret: "arn:aws:ssm:eu-west-1:123456789012:parameter/x" }\n'), 'is not a Secrets Manager secret\'s ARN'],
    ['an empty JSON key', file('      - { env: T, aws-secret: prod/db, key: "" }\n'), 'key: must not be empty (leave key out for the whole string)'],
    ['a key on an SSM parameter', file('      - { env: T, ssm-parameter: /t, key: k }\n'), 'unknown field "key" (expected one of: env, ssm-parameter)'],
    ['both AWS forms at once', file('      - { env: T, aws-secret: prod/db, ssm-parameter: /t }\n'), 'unknown field "ssm-parameter"'],
    ['a Kubernetes secret beside aws-secret', file('      - { env: T, aws-secret: prod/db, secret: ci-db }\n'), 'unknown field "secret"'],
    ['an SSM path ending in /', file('      - { env: T, ssm-parameter: /team/ }\n'), '"/team/" is not an SSM parameter\'s name'],
    ['a bad variable name', file('      - { env: 1T, ssm-parameter: /t }\n'), '"1T" is not a valid environment variable name'],
    ['no env', file('      - { aws-secret: prod/db }\n'), 'env: missing (the environment variable the step sees)'],
    ['a misspelt aws-secret', file('      - { env: T, aws-secert: prod/db }\n'), 'unknown field "aws-secert" (did you mean "aws-secret"?)'],
    ['the same variable from AWS and from a Kubernetes Secret', file('      - { env: T, ssm-parameter: /t }\n      - { env: T, secret: s, key: k }\n'), '"T" is set by two secrets'],
  ])('refuses %s, with its line', (_name, text, message) => {
    expect(problems(text).join('\n')).toContain(message);
  });

  it('keeps a service to Kubernetes Secrets', () => {
    const text = `version: 1\nservices:\n  - name: db\n    image: postgres:16\n    secrets:\n      - { env: T, aws-secret: prod/db }\nsteps:\n  - name: a\n    image: alpine:3.20\n    commands: [x]\n`;
    expect(problems(text).join('\n')).toContain('unknown field "aws-secret"');
  });
});
