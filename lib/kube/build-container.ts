/**
 * A build step's container (`build:`, issue 39): the builder image running buildah, with no
 * privilege and exactly the kernel permissions buildah needs to build in a user namespace of its
 * own, its script, and what it leaves for the runner in its termination message.
 *
 * Why these permissions (checked with Debian's buildah 1.28 in a Docker container, and the same
 * calls are what any buildah does with `BUILDAH_ISOLATION=chroot`):
 * - buildah running as root without CAP_SYS_ADMIN re-executes itself in a new user namespace
 *   (containers/storage pkg/unshare, `unshare(CLONE_NEWUSER)`), where it holds every capability
 *   over its own mounts. The runtime's default seccomp profile refuses that call to a process
 *   without CAP_SYS_ADMIN (moby profiles/seccomp/default.json and containerd's, which Kubernetes'
 *   RuntimeDefault is: "unshare" is allowed with CLONE_NEWUSER only given CAP_SYS_ADMIN), so the
 *   builder's seccomp profile is Unconfined. Under RuntimeDefault buildah stops with `parsing PID
 *   "": invalid syntax` (its re-exec failed).
 * - Writing the new namespace's uid_map and gid_map for more than the writer's own id needs
 *   CAP_SETUID and CAP_SETGID in the parent namespace, and mapping uid 0 needs CAP_SETFCAP since
 *   Linux 5.12 (user_namespaces(7), "Defining user and group ID mappings"). Without any one of the
 *   three the map write is refused (`writing "0 0 4294967295" to /proc/N/uid_map: operation not
 *   permitted`); every other default capability dropped, the build and the push still work.
 * - No privilege escalation (no setuid helper is used: the maps are written by buildah itself, as
 *   root), no privileged container, no host namespace, no hostPath.
 *
 * What that means for Pod Security (kubernetes.io/docs/concepts/security/pod-security-standards):
 * SETUID, SETGID and SETFCAP are among the capabilities `baseline` allows adding; but `baseline`'s
 * Seccomp control says "Seccomp profile must not be explicitly set to Unconfined" (restricted
 * fields spec.securityContext.seccompProfile.type and containers[*].securityContext.seccompProfile.type,
 * allowed: undefined/nil, RuntimeDefault, Localhost). So the build pod needs a namespace at the
 * `privileged` level, and `restricted` refuses it three times over (root, added capabilities,
 * the profile). Leaving the profile unset would pass `baseline`, but then the kubelet decides it:
 * Unconfined without `--seccomp-default`, RuntimeDefault with it, where the build fails; the
 * runner says the profile it needs instead of depending on the node.
 */
import type { V1Container, V1SecurityContext, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { Step, StepBuild } from '../pipeline/types.js';

/** Added after dropping every capability: the ones writing a user namespace's id maps needs. */
export const BUILDER_CAPABILITIES = ['SETUID', 'SETGID', 'SETFCAP'] as const;

/** The Pod Security level a namespace must allow for a build step's pod (see the module comment). */
export const BUILD_POD_SECURITY_LEVEL = 'privileged';

/**
 * Where the builder leaves its outcome for the runner: the container's termination message, which
 * the kubelet copies into the container's terminated state (`message`) whatever the pod's log
 * does, at most 4096 bytes (kubernetes.io/docs/tasks/debug/debug-application/determine-reason-pod-failure,
 * "Customizing the termination message").
 */
export const BUILD_RESULT_PATH = '/dev/termination-log';
/** The first line of a builder's termination message (build-result.ts reads the rest). */
export const BUILD_RESULT_HEADER = 'step-runner-build v1';
/** What the message keeps of the builder's output: its last lines, under the kubelet's 4096 bytes. */
export const BUILD_RESULT_OUTPUT_BYTES = 3000;

/**
 * Registries (host[:port], space-separated) the builder pulls from and pushes to over plain HTTP:
 * an environment variable of the step's (`env:`), for a registry on a private network or a test's
 * on loopback. Absent: TLS everywhere.
 */
export const INSECURE_REGISTRIES_ENV = 'STEP_RUNNER_INSECURE_REGISTRIES';

/** Where a build pod's registry login is mounted: the first pull secret's `.dockerconfigjson`. */
export const REGISTRY_AUTH = { volume: 'step-runner-registry-auth', dir: '/run/step-runner/registry-auth', file: 'auth.json' } as const;

/**
 * The registry login a build step pushes (and pulls its bases) with: the first of the pod's pull
 * secrets (the pipeline's `pull-secrets`, then the deployment's), its `.dockerconfigjson` mounted
 * as a file that buildah reads through REGISTRY_AUTH_FILE (buildah-push(1) and buildah-build(1),
 * `--authfile`: "can be overridden by setting the REGISTRY_AUTH_FILE environment variable"; containers-auth.json(5): the file is
 * compatible with Docker's config.json `auths`). buildah reads one such file, so a later pull
 * secret is not used for the push. Absent: no login.
 */
export function registryAuth(pullSecrets: readonly string[]): { volume: V1Volume; mount: V1VolumeMount; env: Record<string, string> } | undefined {
  const [first] = pullSecrets;
  if (first === undefined) return undefined;
  return {
    volume: { name: REGISTRY_AUTH.volume, secret: { secretName: first, items: [{ key: '.dockerconfigjson', path: REGISTRY_AUTH.file }] } },
    mount: { name: REGISTRY_AUTH.volume, mountPath: REGISTRY_AUTH.dir, readOnly: true },
    env: { REGISTRY_AUTH_FILE: `${REGISTRY_AUTH.dir}/${REGISTRY_AUTH.file}` },
  };
}

/**
 * The builder's securityContext: root (buildah maps it to its own namespace), no escalation, every
 * capability dropped but BUILDER_CAPABILITIES, seccomp Unconfined. Nothing else.
 */
export function builderSecurityContext(): V1SecurityContext {
  return {
    runAsUser: 0,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'], add: [...BUILDER_CAPABILITIES] },
    seccompProfile: { type: 'Unconfined' },
  };
}

/** The builder's environment beside the step's: buildah's chroot isolation (no runc, no mount of /proc it may not make). */
export const BUILDER_ENV: Record<string, string> = {
  BUILDAH_ISOLATION: 'chroot',
};

/**
 * buildah's image store: an emptyDir of the pod's at buildah's default graphroot for root
 * (containers-storage.conf(5): `graphroot` "/var/lib/containers/storage"). On the node's own
 * filesystem (ext4, xfs) rather than the container's overlay root, overlay can stack its layers
 * there: overlayfs refuses an upper directory on overlayfs.
 */
export const BUILDER_STORAGE = { volume: 'step-runner-builder-storage', path: '/var/lib/containers' } as const;

/** The emptyDir at BUILDER_STORAGE and its mount in the builder's container. */
export function builderStorage(): { volume: V1Volume; mount: V1VolumeMount } {
  return { volume: { name: BUILDER_STORAGE.volume, emptyDir: {} }, mount: { name: BUILDER_STORAGE.volume, mountPath: BUILDER_STORAGE.path } };
}

/**
 * The storage driver, chosen at the builder's start: overlay where the kernel mounts it in
 * buildah's user namespace (Linux 5.11 and later: "overlayfs: allow mounting in user namespaces",
 * which containers/storage checks as "Native Overlay Diff"), else vfs. vfs stores each layer as a
 * whole copy of the root filesystem: every `COPY`, every layer pulled from the cache, writes the
 * base image again (a second build of a 100 MB Node.js image spent 6 s of its 12 s copying cached
 * layers into vfs, bench/image-build.ts). overlay stores only each layer's changes. `info` sets the
 * driver up as `build` does, so an overlay that cannot be mounted is found before the build.
 * Native overlay, whatever the image's storage.conf says: `--storage-driver` drops the options the
 * configuration gave the driver (buildah cmd/buildah/common.go getStore: "If any options setup in
 * config, these should be dropped if user overrode the driver"), so the default builder's
 * `mount_program = fuse-overlayfs` (containers/image_build buildah/Containerfile), which would need
 * /dev/fuse, is not used.
 */
const CHOOSE_DRIVER = `driver=overlay; if ! buildah --storage-driver overlay info > /dev/null 2>&1; then driver=vfs; rm -rf ${BUILDER_STORAGE.path}/storage; fi`;

/** buildah's options before its command: the driver chosen above (`push` reads the same store as `build`). */
const BUILDAH = ['buildah', '--storage-driver', '"$driver"'] as const;
/** BUILDAH as sh words: the driver's variable expanded, the rest quoted. */
const buildahWords = (...more: string[]) => [...BUILDAH.slice(0, 2).map(shellWord), BUILDAH[2], ...more.map(shellWord)].join(' ');

/** The OCI labels every build gets (github.com/opencontainers/image-spec annotations.md), from the build's variables. */
export function ociLabels(buildEnv: Record<string, string>): Record<string, string> {
  const revision = buildEnv['CI_COMMIT_SHA'];
  const repository = buildEnv['CI_REPOSITORY'];
  const source = repository === undefined ? undefined : /^[\w.-]+\/[\w.-]+$/.test(repository) ? `https://github.com/${repository}` : /^https?:\/\//.test(repository) ? repository : undefined;
  return {
    ...(revision ? { 'org.opencontainers.image.revision': revision } : {}),
    ...(source ? { 'org.opencontainers.image.source': source } : {}),
  };
}

/** A word for sh, single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The builder's script: `buildah build` with the step's arguments, then one `buildah push` per tag,
 * each echoed as a step's commands are; its outcome (built, pushed with the digest, or which part
 * failed with the exit code and the output's last lines) in the termination message.
 * `secrets`: the step's secret variables, each a build secret of its own name (`RUN
 * --mount=type=secret,id=NAME`), never a build argument.
 */
export function buildScript(build: StepBuild, options: { workspace: string; labels: Record<string, string>; secrets: readonly string[] }): string {
  const at = (path: string) => (path === '.' ? options.workspace : `${options.workspace}/${path}`);
  const buildArgv = [
    ...BUILDAH,
    'build',
    '--layers',
    '--file',
    at(build.dockerfile),
    ...(build.target !== undefined ? ['--target', build.target] : []),
    ...Object.entries(build.buildArgs).flatMap(([name, value]) => ['--build-arg', `${name}=${value}`]),
    ...options.secrets.flatMap((name) => ['--secret', `id=${name},env=${name}`]),
    // Layers from the cache's repository, and back to it unless this build may not write it.
    ...(build.cache ? ['--cache-from', build.cache.repository, ...(build.cache.write ? ['--cache-to', build.cache.repository] : [])] : []),
    ...Object.entries(options.labels).flatMap(([key, value]) => ['--label', `${key}=${value}`]),
    ...build.tags.flatMap((tag) => ['--tag', tag]),
    at(build.context),
  ];
  const pushes = build.push ? build.tags : [];
  // The inputs' key (lib/workflow/build-reuse.ts): why this build runs, and its tag pushed once the image is.
  const inputs = build.inputs;
  const why = build.builds ?? 'no inputs key';
  const said = inputs ? `Inputs key ${inputs.key}: ${why}: building` : `Inputs: ${why}: building`;
  const recordsKey = inputs !== undefined && inputs.write && build.push && pushes.length > 0;
  return [
    'set -u',
    `echo ${shellWord(said)}`,
    `result=${BUILD_RESULT_PATH}`,
    'log=/tmp/step-runner-build.log',
    'digest=/tmp/step-runner-digest',
    'status=/tmp/step-runner-status',
    // One outcome line, the exit code, the digest and tags once pushed, then the output's last lines.
    `outcome() { { echo '${BUILD_RESULT_HEADER}'; echo "outcome: $1"; echo "exit: $2"; if [ -s "$digest" ]; then echo "digest: $(cat "$digest")"; fi; shift 2; for tag in "$@"; do echo "tag: $tag"; done; echo 'output:'; tail -n 40 "$log" | tail -c ${BUILD_RESULT_OUTPUT_BYTES}; } > "$result" 2>/dev/null || true; }`,
    // The command's output goes to the step's log and to the outcome's; its exit code survives the pipe.
    'step() { : > "$log"; { "$@" 2>&1; echo $? > "$status"; } | tee -a "$log"; code=$(cat "$status"); }',
    // Plain HTTP only for the registries the step names (INSECURE_REGISTRIES_ENV).
    `insecure=\${${INSECURE_REGISTRIES_ENV}:-}`,
    'tls() { case " $insecure " in *" ${1%%/*} "*) echo --tls-verify=false ;; *) echo --tls-verify=true ;; esac; }',
    'pulls=--tls-verify=true; if [ -n "$insecure" ]; then pulls=--tls-verify=false; fi',
    CHOOSE_DRIVER,
    `echo "$ buildah --storage-driver $driver "${shellWord(buildArgv.slice(BUILDAH.length).map(shellWord).join(' '))}`,
    `step ${buildahWords(buildArgv[BUILDAH.length]!)} "$pulls" ${buildArgv.slice(BUILDAH.length + 1).map(shellWord).join(' ')}`,
    'if [ "$code" != 0 ]; then outcome build-failed "$code"; exit "$code"; fi',
    ...pushes.flatMap((tag) => [
      `echo "$ buildah --storage-driver $driver "${shellWord(`push --digestfile /tmp/step-runner-digest ${tag}`)}`,
      `step ${buildahWords('push')} "$(tls ${shellWord(tag)})" --digestfile "$digest" ${shellWord(tag)}`,
      // The tag being pushed, for the Cause (which repository refused it).
      `if [ "$code" != 0 ]; then outcome push-failed "$code" ${shellWord(tag)}; exit "$code"; fi`,
    ]),
    // The key's tag last, once every tag is pushed: a build that stopped before never records its inputs.
    // It failing fails nothing (the image is pushed); the next build of these inputs builds again.
    ...(recordsKey
      ? [
          `echo "$ buildah --storage-driver $driver "${shellWord(`push ${pushes[0]} docker://${inputs.tag}`)}`,
          `step ${buildahWords('push')} "$(tls ${shellWord(inputs.tag)})" --digestfile /tmp/step-runner-inputs-digest ${shellWord(pushes[0] ?? '')} ${shellWord(`docker://${inputs.tag}`)}`,
          `if [ "$code" != 0 ]; then echo ${shellWord(`The inputs' tag ${inputs.tag} was not pushed: the next build of these inputs builds again`)}; fi`,
        ]
      : inputs && build.push
        ? [`echo ${shellWord(`The inputs' tag ${inputs.tag} is not pushed: this build may read the registry's cache, never write it (a fork's pull request)`)}`]
        : []),
    `outcome ${build.push ? 'pushed' : 'built'} 0 ${pushes.map(shellWord).join(' ')}`,
  ].join('\n');
}

/**
 * The script of a build step whose inputs were pushed already (StepBuild.reuse): LaunchStep put the
 * image on the step's tags before the pod; the pod says so in the step's log and reports the digest
 * as a build that pushed does. No checkout, no buildah: `echo` only.
 */
export function reuseScript(build: StepBuild & { reuse: { digest: string } }): string {
  const said = `Inputs key ${build.inputs?.key ?? '(none)'}: ${build.inputs?.tag ?? 'its tag'} was pushed for these inputs as ${build.reuse.digest}: tagged ${build.tags.join(', ')} with it, nothing built`;
  return [
    'set -u',
    `echo ${shellWord(said)}`,
    `{ echo '${BUILD_RESULT_HEADER}'; echo 'outcome: pushed'; echo 'exit: 0'; echo ${shellWord(`digest: ${build.reuse.digest}`)}; ${build.tags.map((tag) => `echo ${shellWord(`tag: ${tag}`)};`).join(' ')} echo 'output:'; echo ${shellWord(said)}; } > ${BUILD_RESULT_PATH}`,
  ].join('\n');
}

/** The parts of a build step's container that differ from a run step's. */
export function builderContainerParts(
  step: Step & { build: StepBuild },
  buildEnv: Record<string, string>,
  workspace: string,
): Required<Pick<V1Container, 'securityContext' | 'terminationMessagePath' | 'terminationMessagePolicy'>> & { script: string; env: Record<string, string> } {
  const labels = { ...ociLabels(buildEnv), ...step.build.labels };
  return {
    script: step.build.reuse ? reuseScript({ ...step.build, reuse: step.build.reuse }) : buildScript(step.build, { workspace, labels, secrets: step.secrets.map((secret) => secret.env) }),
    env: BUILDER_ENV,
    securityContext: builderSecurityContext(),
    terminationMessagePath: BUILD_RESULT_PATH,
    // The message is the script's own: the log's tail is never taken in its place.
    terminationMessagePolicy: 'File',
  };
}
