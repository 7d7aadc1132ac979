/**
 * A build step's pod (`build:`): the builder container's permissions, exactly and nothing more;
 * what the embedded cluster's Pod Security admission (the apiserver's checks at v1.33) says of the
 * pod at each level; and the script the builder runs, argument by argument.
 */
import { Pod } from 'kubernetes-models/v1/Pod';
import type { V1Pod } from '@kubernetes/client-node';
import { podSecurityViolations, type PodSecurityLevel } from '../emulators/kubernetes/pod-security.js';
import type { Pod as EmulatedPod } from '../emulators/kubernetes/objects.js';
import { parsePipeline } from '../pipeline/index.js';
import { BUILD_POD_SECURITY_LEVEL, BUILD_RESULT_PATH, buildScript, ociLabels, reuseScript, shellWord } from './build-container.js';
import { stepPodManifest } from './pod-manifest.js';
import { STEP_CONTAINER } from './types.js';

const pipeline = parsePipeline(
  `version: 1
steps:
  - name: image
    secrets: [{env: NPM_TOKEN, secret: npm, key: token}]
    build:
      context: app
      target: runtime
      build-args: {NODE_VERSION: "22"}
      tags: [registry.example.com/app:1, registry.example.com/app:latest]
      cache: registry.example.com/app/cache
      labels: {org.opencontainers.image.title: app}
`,
  'ci.yml',
);
const step = pipeline.steps[0]!;
const buildEnv = { CI_COMMIT_SHA: 'abc123', CI_REPOSITORY: 'org/app' };
const manifest = stepPodManifest({ buildId: 'build-7', step, namespace: 'ci', buildEnv, workspace: { claimName: 'ws-build-7' } });
const builder = manifest.spec!.containers.find((c) => c.name === STEP_CONTAINER)!;

describe('the build step pod', () => {
  it('is a valid Pod by the Kubernetes schema', () => {
    expect(() => new Pod(manifest as ConstructorParameters<typeof Pod>[0]).validate()).not.toThrow();
  });

  it('runs the builder as root with no privilege, every capability dropped but the three id maps need, seccomp Unconfined', () => {
    expect(builder.securityContext).toEqual({
      runAsUser: 0,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'], add: ['SETUID', 'SETGID', 'SETFCAP'] },
      seccompProfile: { type: 'Unconfined' },
    });
    expect(manifest.spec?.securityContext).toBeUndefined();
    expect(manifest.spec?.hostUsers).toBeUndefined();
    expect(JSON.stringify(manifest)).not.toMatch(/privileged|hostPath|hostNetwork|hostPID|SYS_ADMIN/);
  });

  it('leaves its outcome in the termination message, as the file wrote it', () => {
    expect([builder.terminationMessagePath, builder.terminationMessagePolicy]).toEqual([BUILD_RESULT_PATH, 'File']);
  });

  it("sets buildah's isolation, and passes the secret as a variable, never as a build argument", () => {
    const env = builder.env ?? [];
    expect(env).toEqual(expect.arrayContaining([
      { name: 'BUILDAH_ISOLATION', value: 'chroot' },
      { name: 'NPM_TOKEN', valueFrom: { secretKeyRef: { name: 'npm', key: 'token' } } },
    ]));
    expect(builder.command?.[2]).not.toMatch(/--build-arg'? '?NPM_TOKEN/);
  });

  it.each<[PodSecurityLevel | 'privileged', string[]]>([
    ['privileged', []],
    // kubernetes.io/docs/concepts/security/pod-security-standards, Baseline, Seccomp: "must not be explicitly set to Unconfined".
    ['baseline', ['seccompProfile (container "step" must not set securityContext.seccompProfile.type to "Unconfined")']],
    [
      'restricted',
      [
        'unrestricted capabilities (container "step" must not include "SETFCAP", "SETGID", "SETUID" in securityContext.capabilities.add)',
        'runAsNonRoot != true (pod or container "step" must set securityContext.runAsNonRoot=true)',
        'runAsUser=0 (container "step" must not set runAsUser=0)',
        'seccompProfile (container "step" must not set securityContext.seccompProfile.type to "Unconfined")',
      ],
    ],
  ])('the embedded cluster admits it at %s with these refusals: %j', (level, refusals) => {
    const violations = level === 'privileged' ? [] : podSecurityViolations(manifest as unknown as EmulatedPod, level);
    expect(violations).toEqual(refusals);
    if (level === BUILD_POD_SECURITY_LEVEL) expect(violations).toEqual([]);
  });
});

describe("the builder's image store", () => {
  it('is an emptyDir of the pod at buildah\'s graphroot, where overlay can stack layers (not the container\'s overlay root)', () => {
    expect(manifest.spec?.volumes).toContainEqual({ name: 'step-runner-builder-storage', emptyDir: {} });
    expect(builder.volumeMounts).toContainEqual({ name: 'step-runner-builder-storage', mountPath: '/var/lib/containers' });
    const run = parsePipeline('version: 1\nsteps:\n  - name: t\n    image: alpine\n    commands: ["true"]\n', 'ci.yml').steps[0]!;
    expect(JSON.stringify(stepPodManifest({ buildId: 'b', step: run, namespace: 'ci' }))).not.toContain('step-runner-builder-storage');
  });
});

describe("the build pod's registry login", () => {
  it("mounts the first pull secret's .dockerconfigjson where REGISTRY_AUTH_FILE names it", () => {
    const pod = stepPodManifest({ buildId: 'build-7', step, namespace: 'ci', buildEnv, workspace: { claimName: 'ws-build-7' }, pullSecrets: ['ghcr-push', 'hub-pull'] });
    expect(() => new Pod(pod as ConstructorParameters<typeof Pod>[0]).validate()).not.toThrow();
    expect(pod.spec?.volumes).toContainEqual({ name: 'step-runner-registry-auth', secret: { secretName: 'ghcr-push', items: [{ key: '.dockerconfigjson', path: 'auth.json' }] } });
    const container = pod.spec!.containers[0]!;
    expect(container.volumeMounts).toContainEqual({ name: 'step-runner-registry-auth', mountPath: '/run/step-runner/registry-auth', readOnly: true });
    expect(container.env).toContainEqual({ name: 'REGISTRY_AUTH_FILE', value: '/run/step-runner/registry-auth/auth.json' });
    expect(pod.spec?.imagePullSecrets).toEqual([{ name: 'ghcr-push' }, { name: 'hub-pull' }]);
  });

  it('is not given without pull secrets, nor to a step that runs commands', () => {
    expect(JSON.stringify(manifest)).not.toContain('REGISTRY_AUTH_FILE');
    const run = parsePipeline('version: 1\nsteps:\n  - name: t\n    image: alpine\n    commands: ["true"]\n', 'ci.yml').steps[0]!;
    expect(JSON.stringify(stepPodManifest({ buildId: 'b', step: run, namespace: 'ci', pullSecrets: ['ghcr-push'] }))).not.toContain('REGISTRY_AUTH_FILE');
  });
});

describe('the builder script', () => {
  const script = (manifestOf: V1Pod) => manifestOf.spec!.containers[0]!.command![2]!;

  it('builds with layers, the Dockerfile in the context, the target, arguments, secrets, labels and tags, then pushes each tag', () => {
    const text = script(manifest);
    expect(text).toContain(
      'step buildah --storage-driver "$$driver" build "$$pulls" --layers --file /workspace/app/Dockerfile --target runtime --build-arg NODE_VERSION=22 --secret id=NPM_TOKEN,env=NPM_TOKEN --cache-from registry.example.com/app/cache --cache-to registry.example.com/app/cache ' +
        '--label org.opencontainers.image.revision=abc123 --label org.opencontainers.image.source=https://github.com/org/app --label org.opencontainers.image.title=app ' +
        '--tag registry.example.com/app:1 --tag registry.example.com/app:latest /workspace/app',
    );
    expect(text).toContain('step buildah --storage-driver "$$driver" push "$$(tls registry.example.com/app:1)" --digestfile "$$digest" registry.example.com/app:1');
    expect(text).toContain('step buildah --storage-driver "$$driver" push "$$(tls registry.example.com/app:latest)" --digestfile "$$digest" registry.example.com/app:latest');
    expect(text).toMatch(/outcome pushed 0 registry.example.com\/app:1 registry.example.com\/app:latest$/);
  });

  it("reads the layer cache and does not write it when the build may not (a fork's pull request)", () => {
    const text = buildScript({ ...step.build!, cache: { repository: 'registry.example.com/app/cache', write: false } }, { workspace: '/workspace', labels: {}, secrets: [] });
    expect(text).toContain('--cache-from registry.example.com/app/cache --tag');
    expect(text).not.toContain('--cache-to');
  });

  it('pushes nothing with push: false', () => {
    const built = parsePipeline('version: 1\nsteps:\n  - name: check\n    build: {push: false}\n', 'ci.yml').steps[0]!;
    const text = buildScript(built.build!, { workspace: '/workspace', labels: {}, secrets: [] });
    expect(text).not.toContain('buildah push');
    expect(text).toMatch(/outcome built 0 $/);
  });

  const inputs = { key: 'f'.repeat(64), tag: `registry.example.com/app:inputs-${'f'.repeat(40)}`, write: true };

  it("says why it builds, with the inputs key, and pushes the key's tag after every tag", () => {
    const text = buildScript({ ...step.build!, inputs, builds: 'no image was pushed for these inputs yet' }, { workspace: '/workspace', labels: {}, secrets: [] });
    expect(text.split('\n')[1]).toBe(`echo 'Inputs key ${inputs.key}: no image was pushed for these inputs yet: building'`);
    const lines = text.split('\n');
    const keyPush = lines.findIndex((line) => line.includes(`docker://${inputs.tag}`) && line.startsWith('step '));
    expect(lines[keyPush]).toBe(`step buildah --storage-driver "$driver" push "$(tls ${inputs.tag})" --digestfile /tmp/step-runner-inputs-digest registry.example.com/app:1 docker://${inputs.tag}`);
    expect(keyPush).toBeGreaterThan(lines.findIndex((line) => line.includes('--digestfile "$digest" registry.example.com/app:latest')));
  });

  it.each<[string, Partial<typeof inputs> & { push?: boolean }, string]>([
    ["a fork's pull request", { write: false }, 'tag registry.example.com/app:inputs-ffffffffffffffffffffffffffffffffffffffff is not pushed: this build may read the registry'],
    ['push: false', { push: false }, 'outcome built 0'],
  ])("does not push the key's tag for %s", (_, change, said) => {
    const { push, ...rest } = change;
    const text = buildScript({ ...step.build!, ...(push !== undefined ? { push } : {}), inputs: { ...inputs, ...rest } }, { workspace: '/workspace', labels: {}, secrets: [] });
    expect(text).not.toContain('docker://');
    expect(text).toContain(said);
  });

  it('of a build whose inputs were pushed already runs no buildah, says so with the key, and leaves the digest as a pushing build does', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    // What the integration test runs (test/image-builds.integration.test.ts: its log and its reported digest).
    expect(reuseScript({ ...step.build!, inputs, reuse: { digest } }).split('\n')).toEqual([
      'set -u',
      `echo '${`Inputs key ${inputs.key}: ${inputs.tag} was pushed for these inputs as ${digest}: tagged registry.example.com/app:1, registry.example.com/app:latest with it, nothing built`}'`,
      `{ echo 'step-runner-build v1'; echo 'outcome: pushed'; echo 'exit: 0'; echo 'digest: ${digest}'; echo 'tag: registry.example.com/app:1'; echo 'tag: registry.example.com/app:latest'; echo 'output:'; echo '${`Inputs key ${inputs.key}: ${inputs.tag} was pushed for these inputs as ${digest}: tagged registry.example.com/app:1, registry.example.com/app:latest with it, nothing built`}'; } > ${BUILD_RESULT_PATH}`,
    ]);
  });

  it.each([
    [{ CI_COMMIT_SHA: 'abc', CI_REPOSITORY: 'org/app' }, { 'org.opencontainers.image.revision': 'abc', 'org.opencontainers.image.source': 'https://github.com/org/app' }],
    [{ CI_COMMIT_SHA: 'abc', CI_REPOSITORY: 'https://git.example.com/org/app.git' }, { 'org.opencontainers.image.revision': 'abc', 'org.opencontainers.image.source': 'https://git.example.com/org/app.git' }],
    [{ CI_REPOSITORY: '/home/me/app' }, {}],
  ])('OCI labels from %j', (env, labels) => {
    expect(ociLabels(env)).toEqual(labels);
  });

  it.each([
    ['plain', 'plain'],
    ['two words', "'two words'"],
    ["it's", "'it'\\''s'"],
  ])('quotes %s as %s', (word, quoted) => {
    expect(shellWord(word)).toBe(quoted);
  });
});
