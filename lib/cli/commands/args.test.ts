import { describe, expect, it } from '@jest/globals';
import { parseRunArgs, type RunOptions } from './run-args.js';
import { parseServeArgs } from './serve-args.js';
import { identitiesFromFile } from './identity-args.js';
import { UsageError } from './usage.js';

describe('--workspace-mode', () => {
  it('chooses where run and serve keep the workspace, as the deployment setting does', () => {
    expect((parseRunArgs(['p.yml', '--workspace-mode', 'ephemeral']) as RunOptions).workspaceMode).toBe('ephemeral');
    expect(parseServeArgs(['--workspace-mode', 'volume'], {}).workspaceMode).toBe('volume');
    expect((parseRunArgs(['p.yml']) as RunOptions).workspaceMode).toBeUndefined();
  });

  it('refuses a mode that does not exist, naming the ones that do', () => {
    expect(() => parseRunArgs(['p.yml', '--workspace-mode', 'fargate'])).toThrow('--workspace-mode must be one of volume, ephemeral, got "fargate"');
    expect(() => parseServeArgs(['--workspace-mode', 'emptydir'], {})).toThrow(/must be one of volume, ephemeral/);
  });
});

describe('run --input', () => {
  test.each([
    [['p.yml', '--input', 'target=staging', '--input', 'note=a=b'], { inputs: { target: 'staging', note: 'a=b' }, event: 'manual' }],
    [['p.yml', '--input', 'target=staging', '--event', 'push'], { inputs: { target: 'staging' }, event: 'push' }],
  ])('%j: a manual run, unless --event says', (argv, options) => {
    expect(parseRunArgs(argv)).toMatchObject(options);
  });

  test.each([
    [['p.yml', '--input', 'target'], '--input "target" is not NAME=VALUE'],
    [['p.yml', '--input', 'a=1', '--input', 'a=2'], '--input a is given twice'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseRunArgs(argv)).toThrow(message);
  });
});

describe('run --branch and --event', () => {
  it('sets what the steps\' `when` sees', () => {
    expect(parseRunArgs(['p.yml', '--branch', 'release/1.2', '--event', 'pull_request'])).toMatchObject({ branch: 'release/1.2', event: 'pull_request' });
    const plain = parseRunArgs(['p.yml']) as RunOptions;
    expect(plain.branch).toBeUndefined();
    expect(plain.event).toBeUndefined();
  });

  it('refuses an event `when` does not know and a branch git would not take', () => {
    expect(() => parseRunArgs(['p.yml', '--event', 'release'])).toThrow('--event must be one of push, pull_request, tag, generic, local, manual, schedule, got "release"');
    expect(() => parseRunArgs(['p.yml', '--branch', 'my branch'])).toThrow('--branch must be a branch name such as main, got "my branch"');
    expect(() => parseRunArgs(['p.yml', '--branch', ''])).toThrow(/--branch must be a branch name/);
  });
});

describe('serve --branch and --event', () => {
  it('set what the example build\'s `when` sees, checked as run checks them', () => {
    expect(parseServeArgs(['--example', 'p.yml', '--branch', 'release/1.2', '--event', 'tag'], {})).toMatchObject({ example: 'p.yml', branch: 'release/1.2', event: 'tag' });
    const plain = parseServeArgs(['--example', 'p.yml'], {});
    expect(plain.branch).toBeUndefined();
    expect(plain.event).toBeUndefined();
    expect(() => parseServeArgs(['--example', 'p.yml', '--event', 'release'], {})).toThrow('--event must be one of push, pull_request, tag, generic, local, manual, schedule, got "release"');
    expect(() => parseServeArgs(['--example', 'p.yml', '--branch', 'my branch'], {})).toThrow('--branch must be a branch name such as main, got "my branch"');
  });

  it('are refused without --example: deliveries bring their own branch and event', () => {
    expect(() => parseServeArgs(['--branch', 'main'], {})).toThrow('--branch needs --example');
    expect(() => parseServeArgs(['--event', 'push'], {})).toThrow('--event needs --example');
  });
});

describe('--runtime', () => {
  it('chooses what the embedded cluster runs steps in, for run and serve; absent, nothing is asked', () => {
    expect((parseRunArgs(['p.yml', '--runtime', 'docker']) as RunOptions).runtime).toBe('docker');
    expect(parseServeArgs(['--runtime', 'process'], {}).runtime).toBe('process');
    expect((parseRunArgs(['p.yml']) as RunOptions).runtime).toBeUndefined();
    expect(parseServeArgs([], {}).runtime).toBeUndefined();
  });

  it('refuses a runtime that does not exist, naming the ones that do', () => {
    expect(() => parseRunArgs(['p.yml', '--runtime', 'podman'])).toThrow(new UsageError('--runtime must be one of docker, process, got "podman"'));
    expect(() => parseServeArgs(['--runtime', ''], {})).toThrow(/--runtime must be one of docker, process/);
  });

  it('is refused with --kubeconfig, whose cluster has its own runtime, naming both', () => {
    for (const parse of [() => parseRunArgs(['p.yml', '--runtime', 'docker', '--kubeconfig', 'k']), () => parseServeArgs(['--kubeconfig', 'k', '--runtime', 'process'], {})]) {
      expect(parse).toThrow(UsageError);
      expect(parse).toThrow(/--runtime .*--kubeconfig/);
    }
  });
});

describe('--clone-image', () => {
  it('names the checkout\'s image for run and serve, as the deployment\'s CLONE_IMAGE does', () => {
    expect((parseRunArgs(['p.yml', '--clone-image', 'registry.example.com/ci/git:2']) as RunOptions).cloneImage).toBe('registry.example.com/ci/git:2');
    expect(parseServeArgs(['--clone-image', 'localhost:5000/git:1'], {}).cloneImage).toBe('localhost:5000/git:1');
    expect((parseRunArgs(['p.yml']) as RunOptions).cloneImage).toBeUndefined();
    expect(parseServeArgs([], {}).cloneImage).toBeUndefined();
  });

  it('refuses what is no image reference before anything starts', () => {
    expect(() => parseRunArgs(['p.yml', '--clone-image', 'Alpine/Git'])).toThrow(UsageError);
    expect(() => parseRunArgs(['p.yml', '--clone-image', 'Alpine/Git'])).toThrow(/^--clone-image "Alpine\/Git" is not a valid image reference: /);
    expect(() => parseServeArgs(['--clone-image', ''], {})).toThrow(/--clone-image "" is not a valid image reference/);
  });
});

describe('--otlp-endpoint', () => {
  it('sends run\'s and serve\'s builds as traces there, as the deployment\'s otlpEndpoint does', () => {
    expect((parseRunArgs(['p.yml', '--otlp-endpoint', 'http://localhost:4318']) as RunOptions).otlpEndpoint).toBe('http://localhost:4318');
    expect(parseServeArgs(['--otlp-endpoint', 'https://otlp.example.com/v1/traces'], {}).otlpEndpoint).toBe('https://otlp.example.com/v1/traces');
    expect((parseRunArgs(['p.yml']) as RunOptions).otlpEndpoint).toBeUndefined();
  });

  it('refuses what is no http(s) URL before anything starts', () => {
    expect(() => parseRunArgs(['p.yml', '--otlp-endpoint', 'localhost:4318'])).toThrow(UsageError);
    expect(() => parseServeArgs(['--otlp-endpoint', 'grpc://collector:4317'], {})).toThrow(/^--otlp-endpoint "grpc:\/\/collector:4317" is not an http:\/\/ or https:\/\/ URL/);
  });
});

describe('--cache-image', () => {
  it("names the cache containers' image for run and serve, as the deployment's CACHE_IMAGE does", () => {
    expect((parseRunArgs(['p.yml', '--cache-image', 'registry.example.com/ci/curl:8']) as RunOptions).cacheImage).toBe('registry.example.com/ci/curl:8');
    expect(parseServeArgs(['--cache-image', 'localhost:5000/curl:1'], {}).cacheImage).toBe('localhost:5000/curl:1');
    expect((parseRunArgs(['p.yml']) as RunOptions).cacheImage).toBeUndefined();
    expect(parseServeArgs([], {}).cacheImage).toBeUndefined();
  });

  it('refuses what is no image reference before anything starts, naming the flag', () => {
    expect(() => parseRunArgs(['p.yml', '--cache-image', 'Curl/Images'])).toThrow(/^--cache-image "Curl\/Images" is not a valid image reference: /);
    expect(() => parseServeArgs(['--cache-image', ''], {})).toThrow(/--cache-image "" is not a valid image reference/);
  });
});

describe('run --changed and --base', () => {
  it('--changed lists the change\'s files, repeatable, as repository paths', () => {
    expect(parseRunArgs(['p.yml', '--changed', 'docs/x.md', '--changed', './services/api/main.go', '--changed', '.github/workflows/ci.yml'])).toMatchObject({
      changed: ['docs/x.md', 'services/api/main.go', '.github/workflows/ci.yml'],
    });
    expect(parseRunArgs(['--changed=docs/x.md'])).toMatchObject({ changed: ['docs/x.md'] });
  });

  it('--base names the ref the work tree is compared with', () => {
    expect(parseRunArgs(['p.yml', '--base', 'origin/main'])).toMatchObject({ base: 'origin/main' });
    expect(parseRunArgs(['p.yml', '--default-branch', 'trunk'])).toMatchObject({ defaultBranch: 'trunk' });
    expect(parseServeArgs(['--default-branch', 'develop'], {})).toMatchObject({ defaultBranch: 'develop' });
    expect(() => parseRunArgs(['p.yml', '--default-branch', 'a..b'])).toThrow('--default-branch must be a branch name such as main, got "a..b"');
  });

  it('neither: no change is known', () => {
    const plain = parseRunArgs(['p.yml']) as RunOptions;
    expect(plain.changed).toBeUndefined();
    expect(plain.base).toBeUndefined();
  });

  it('refuses both at once, and paths that name no file of a repository', () => {
    expect(() => parseRunArgs(['p.yml', '--changed', 'docs/x.md', '--base', 'main'])).toThrow(UsageError);
    expect(() => parseRunArgs(['p.yml', '--changed', 'docs/x.md', '--base', 'main'])).toThrow('--changed and --base both say what the change is');
    expect(() => parseRunArgs(['p.yml', '--changed', '/etc/passwd'])).toThrow('--changed takes a file\'s path in the repository, such as docs/README.md; "/etc/passwd" is none: it is absolute');
    expect(() => parseRunArgs(['p.yml', '--changed', '../x'])).toThrow(/it has an empty, "\." or "\.\." segment/);
    expect(() => parseRunArgs(['p.yml', '--changed', 'docs\\x.md'])).toThrow(/it has a backslash/);
    expect(() => parseRunArgs(['p.yml', '--changed', ''])).toThrow(/it is empty/);
    expect(() => parseRunArgs(['p.yml', '--base', ''])).toThrow('--base must name a commit, branch or tag such as main, got ""');
    expect(() => parseRunArgs(['p.yml', '--base'])).toThrow(UsageError);
  });
});

describe('run --autoscale-after', () => {
  it.each([
    ['5s', 5_000],
    ['500ms', 500],
    ['2m', 120_000],
    ['1.5s', 1_500],
    ['3', 3_000],
  ])('%s: the embedded node joins that many ms after a pod needs it', (given, ms) => {
    expect((parseRunArgs(['p.yml', '--autoscale-after', given]) as RunOptions).autoscaleAfterMs).toBe(ms);
  });

  it('is off unless asked for, refuses what is not a duration, and is not for a cluster of your own', () => {
    expect((parseRunArgs(['p.yml']) as RunOptions).autoscaleAfterMs).toBeUndefined();
    expect(() => parseRunArgs(['p.yml', '--autoscale-after', 'soon'])).toThrow('--autoscale-after must be a duration such as 5s, 500ms or 2m, got "soon"');
    expect(() => parseRunArgs(['p.yml', '--autoscale-after', '5s', '--kubeconfig', 'k'])).toThrow(UsageError);
  });
});

describe('serve --github-app-id, --github-app-key and --github-api-url', () => {
  it.each([
    { args: ['--github-app-id', '42', '--github-app-key', 'app.pem'], expected: { githubApp: { appId: '42', privateKeyFile: 'app.pem' } } },
    { args: ['--github-app-id', '42', '--github-app-key', 'app.pem', '--github-api-url', 'http://127.0.0.1:9000/'], expected: { githubApp: { appId: '42', privateKeyFile: 'app.pem', apiUrl: 'http://127.0.0.1:9000' } } },
  ])('name the App builds report check runs through: $args', ({ args, expected }) => {
    expect(parseServeArgs(args, {})).toMatchObject(expected);
  });

  it.each([
    { args: ['--github-app-id', '42'], problem: '--github-app-id and --github-app-key go together' },
    { args: ['--github-app-key', 'app.pem'], problem: '--github-app-id and --github-app-key go together' },
    { args: ['--github-api-url', 'http://x'], problem: '--github-api-url needs --github-app-id and --github-app-key' },
    { args: ['--github-app-id', '42', '--github-app-key', 'k', '--github-api-url', 'api.github.com'], problem: '--github-api-url must be an http(s) URL, got "api.github.com"' },
  ])('are refused incomplete or wrong: $args', ({ args, problem }) => {
    expect(() => parseServeArgs(args, {})).toThrow(problem);
  });
});

describe('run --artifacts', () => {
  it('names where the artifacts go, for the embedded cluster only', () => {
    expect(parseRunArgs(['p.yml', '--artifacts', 'out'])).toMatchObject({ artifacts: 'out' });
    expect(() => parseRunArgs(['p.yml', '--artifacts', 'out', '--kubeconfig', 'k'])).toThrow(/--artifacts is for the embedded cluster/);
    expect(() => parseRunArgs(['p.yml', '--artifacts', ''])).toThrow('--artifacts must name a folder');
  });
});

describe('run --keep', () => {
  it("keeps a failed build's claim on a cluster of your own only: the embedded one stops with run", () => {
    expect((parseRunArgs(['p.yml', '--kubeconfig', 'k', '--keep']) as RunOptions).keep).toBe(true);
    expect((parseRunArgs(['p.yml', '--kubeconfig', 'k']) as RunOptions).keep).toBeUndefined();
    expect(() => parseRunArgs(['p.yml', '--keep'])).toThrow('--keep is for a cluster of your own (--kubeconfig): the embedded cluster, and all it holds, stops with run');
  });
});

describe('run --shell-on-failure', () => {
  it('is asked for, or not', () => {
    expect((parseRunArgs(['p.yml', '--shell-on-failure']) as RunOptions).shellOnFailure).toBe(true);
    expect((parseRunArgs(['p.yml']) as RunOptions).shellOnFailure).toBeUndefined();
  });
});

describe('run --identity', () => {
  const ROLE = 'arn:aws:iam::123456789012:role/deploy';

  it('declares each identity once, with no rules: a local build may use it', () => {
    expect((parseRunArgs(['p.yml', '--identity', `deploy=${ROLE}`, '--identity', `deploy=${ROLE}`, '--identity', 'docs=arn:aws-cn:iam::123456789012:role/ci/docs']) as RunOptions).identities).toEqual([
      { name: 'deploy', roleArn: ROLE },
      { name: 'docs', roleArn: 'arn:aws-cn:iam::123456789012:role/ci/docs' },
    ]);
  });

  it.each([
    [['--identity', 'deploy'], '--identity takes NAME=ROLE_ARN, got "deploy"'],
    [['--identity', `Deploy=${ROLE}`], '--identity "Deploy" must use only lowercase letters'],
    [['--identity', 'deploy=arn:aws:iam::123456789012:user/me'], '--identity deploy: the role must be an IAM role\'s ARN'],
    [['--identity', `deploy=${ROLE}`, '--identity', `deploy=${ROLE}2`], '--identity deploy is given twice, with two roles'],
  ])('refuses %j', (args, message) => {
    expect(() => parseRunArgs(['p.yml', ...args])).toThrow(expect.objectContaining({ name: UsageError.name, message: expect.stringContaining(message) }));
  });
});

describe('run --identities FILE', () => {
  const FILE = `deploy:\n  role: arn:aws:iam::123456789012:role/deploy\n  repositories: [acme/site]\n  refs: [refs/heads/main]\n  events: [push]\ndocs:\n  role: arn:aws:iam::123456789012:role/docs\n  repositories: ["**"]\n  refs: ["**"]\n  events: [push]\n`;

  it("takes each identity's role from a deployment's identities file, not its rules, beside --identity's", () => {
    expect(identitiesFromFile(FILE, 'identities.yml', [{ name: 'ship', roleArn: 'arn:aws:iam::123456789012:role/ship' }])).toEqual([
      { name: 'ship', roleArn: 'arn:aws:iam::123456789012:role/ship' },
      { name: 'deploy', roleArn: 'arn:aws:iam::123456789012:role/deploy' },
      { name: 'docs', roleArn: 'arn:aws:iam::123456789012:role/docs' },
    ]);
    expect(parseRunArgs(['p.yml', '--identities', 'identities.yml'])).toMatchObject({ identitiesFile: 'identities.yml' });
  });

  it.each([
    ['deploy: [', '--identities identities.yml: not YAML'],
    ['deploy:\n  role: arn:aws:iam::123456789012:role/deploy\n', '--identities identities.yml: identity "deploy", repositories: must list at least one repository glob'],
    [FILE, '--identity deploy names the role arn:aws:iam::123456789012:role/other, and --identities identities.yml the role arn:aws:iam::123456789012:role/deploy: give one'],
  ])('refuses %j', (text, message) => {
    expect(() => identitiesFromFile(text, 'identities.yml', [{ name: 'deploy', roleArn: 'arn:aws:iam::123456789012:role/other' }])).toThrow(
      expect.objectContaining({ name: UsageError.name, message: expect.stringContaining(message) }),
    );
  });
});
