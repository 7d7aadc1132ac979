import type { V1Affinity, V1Container, V1EnvVar, V1Pod, V1PodSecurityContext, V1ResourceRequirements, V1SecurityContext, V1Toleration, V1Volume } from '@kubernetes/client-node';
import { DEFAULT_SERVICE_START_GRACE_SECONDS } from '../pipeline/services.js';
import { PullPolicies, type Service, type Step, type StepResources, type Toleration } from '../pipeline/types.js';
import { Annotations, BUILD_DEADLINE_ANNOTATION, Labels, MANAGED_BY, STEP_CONTAINER } from './types.js';
import { labelValue, stepPodName } from './pod-name.js';
import { PORT_GATE_SCRIPT, portGateContainerName, portProbe, serviceContainerName } from './service-containers.js';
import { CACHE_SCRATCH, cacheRestoreContainer, cacheSaveContainer, cacheUrlsVolume, stepScratchMount, type PodCachePlan } from './cache-containers.js';
import { stepScript } from './step-script.js';
import { WORKSPACE_PATH, WORKSPACE_VOLUME } from './workspace.js';
import { identityServiceAccount } from './service-accounts.js';
import { builderContainerParts, builderStorage, registryAuth } from './build-container.js';

export interface StepPodManifestInput {
  buildId: string;
  step: Step;
  namespace: string;
  /** More labels (e.g. commit); the runner's own labels win on a clash. */
  extraLabels?: Record<string, string>;
  /** The build's repository (`owner/name`), labelled for cost attribution; absent: a build of no repository. */
  repository?: string;
  /** The build's variables (CI, CI_COMMIT_SHA, ...); the step's own env and secrets win on a clash. */
  buildEnv?: Record<string, string>;
  /** Mounted at /workspace, every container's working directory; absent: none. */
  workspace?: PodWorkspace;
  /**
   * The checkout, run as an init container before the step when the workspace is the pod's own
   * (ephemeral): each pod then fetches the source itself.
   */
  checkout?: Step;
  /**
   * Run every container as this non-root user (and group), the workspace volume owned by that
   * group: what a namespace at the Pod Security `restricted` level demands. Absent: the images'
   * own users, root for most CI images (the `baseline` level).
   */
  runAsUser?: number;
  /**
   * Secrets (kubernetes.io/dockerconfigjson) the kubelet pulls every container's image with, the
   * checkout's included: the pipeline's `pull-secrets` and the deployment's.
   */
  pullSecrets?: readonly string[];
  /**
   * A build step's registry login Secret (registry-login-secret.ts: its ECR login over the first
   * pull secret's), which its builder logs in with instead of the first pull secret. Absent: that one.
   */
  registryLogin?: string;
  /** The deployment's node selector and tolerations; the step's own are merged over them (stepPlacement). */
  placement?: PodPlacement;
  /** How long the step's services may take to open their ports (their startup probes); default 2 min. */
  serviceStartGraceSeconds?: number;
  /**
   * A pod that may outlive its own deadline: the succeeded pod of a step others need stays until
   * the build's cleanup, and the orphan sweep must wait for the build's deadline (this many
   * seconds from the pod's creation) before taking it for an orphan.
   */
  keepForSeconds?: number;
  /**
   * The step's cache (cache-containers.ts): a restore init container after the checkout, a save
   * sidecar after the services, and the scratch emptyDir they and the step share. Absent, or no
   * workspace: none.
   */
  cache?: PodCachePlan;
  /**
   * Lines the step's script prints before anything else, so that they are in its own log: what
   * LaunchStep decided that the step's reader must know (its cache could not be planned).
   */
  notes?: readonly string[];
  /** Which attempt of the step this pod is (0: the first); a retry's pod has a name of its own. */
  attempt?: number;
  /** `$$.Execution.RedriveCount` (0: the build's first run); a re-run's pod has a name of its own. */
  redrive?: number;
  /** How many attempts may still follow this one (the step's retry.max left), for which Errors; absent: none. */
  retry?: { left: number; on: readonly string[] };
  /**
   * true: the pod carries no DO_NOT_DISRUPT annotations, so node autoscalers may evict it to
   * remove its node (the deployment's stepDoNotDisrupt 'off'). Absent: protected.
   */
  disruptible?: boolean;
}

/**
 * A step pod has no owner, and no controller would make it again: evicted, its step ends as
 * StepInterrupted and runs again from the start (twice by default), whatever it had done. Node
 * autoscalers evict such pods on their own schedule unless told not to:
 * - Karpenter (and EKS Auto Mode, which runs it) evicts pods without an ownerRef
 *   ("controllerless" or "naked" pods) when it consolidates or drifts their node
 *   (kubernetes-sigs/karpenter#70, aws/karpenter#2847); "You can block Karpenter from voluntarily
 *   choosing to disrupt certain pods by setting the `karpenter.sh/do-not-disrupt: "true"`
 *   annotation on the pod ... a long batch job ... that would need to start over if it were
 *   interrupted" (https://karpenter.sh/docs/concepts/disruption/#pod-level-controls). Expiration,
 *   repair and a forceful termination still take the node (Reference > Well-Known Annotations).
 * - cluster-autoscaler: a pod not backed by a controller, or with local storage, already keeps
 *   its node from scale-down unless annotated `safe-to-evict: "true"`, and "false" keeps it for
 *   any pod (https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/FAQ.md,
 *   "What types of pods can prevent CA from removing a node?"). Saying "false" outright keeps a
 *   mutating webhook or policy that adds "true" to pods with emptyDir volumes where none is set
 *   (Kyverno's add-safe-to-evict) from opting the step in.
 */
export const DO_NOT_DISRUPT_ANNOTATIONS = {
  'karpenter.sh/do-not-disrupt': 'true',
  'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false',
} as const;

/** Where a pod may run: node labels it needs, taints it tolerates. */
export interface PodPlacement {
  nodeSelector?: Record<string, string>;
  tolerations?: readonly Toleration[];
}

/**
 * The step's placement over the deployment's: its node-selector keys replace the deployment's
 * same keys, its tolerations come after the deployment's (an exact repeat once). Absent parts: none.
 */
export function stepPlacement(step: Pick<Step, 'nodeSelector' | 'tolerations'>, defaults: PodPlacement = {}): PodPlacement {
  const nodeSelector = { ...defaults.nodeSelector, ...step.nodeSelector };
  const seen = new Set<string>();
  const tolerations = [...(defaults.tolerations ?? []), ...(step.tolerations ?? [])].filter((t) => {
    const key = JSON.stringify([t.key, t.operator, t.value, t.effect, t.tolerationSeconds]);
    return seen.has(key) ? false : (seen.add(key), true);
  });
  return {
    ...(Object.keys(nodeSelector).length > 0 ? { nodeSelector } : {}),
    ...(tolerations.length > 0 ? { tolerations } : {}),
  };
}

/**
 * `claimName`: the build's claim, shared by its pods, every one of which is kept beside the others
 * still running (workspaceAffinity); `node` also pins the pod to where the claim's volume was made,
 * once its first pod has put it there (WaitForFirstConsumer classes). `ephemeral`: an emptyDir
 * that lives and dies with the pod, for clusters that cannot provision volumes (Fargate).
 */
export type PodWorkspace = { claimName: string; node?: string } | { ephemeral: true };

export const HOSTNAME_LABEL = 'kubernetes.io/hostname';

/**
 * Pods that stop quickly when deleted: a cancelled build should not hold a node for the default
 * 30 s, and step processes get SIGTERM first anyway.
 */
export const STEP_TERMINATION_GRACE_SECONDS = 10;

export function stepPodManifest({
  buildId,
  step,
  namespace,
  extraLabels = {},
  repository,
  buildEnv = {},
  workspace,
  checkout,
  runAsUser,
  pullSecrets = [],
  registryLogin,
  placement,
  serviceStartGraceSeconds = DEFAULT_SERVICE_START_GRACE_SECONDS,
  keepForSeconds,
  cache: planned,
  attempt = 0,
  redrive = 0,
  retry,
  disruptible = false,
  notes = [],
}: StepPodManifestInput): V1Pod {
  const mounted = workspace !== undefined;
  // A cache lives in the workspace: a pod without one has nothing to restore into or save.
  const cache = mounted ? planned : undefined;
  const services = step.services ?? [];
  const restore = cache ? cacheRestoreContainer(cache, { mounted, runAsUser, step: step.name }) : undefined;
  const save = cache ? cacheSaveContainer(cache, { mounted, runAsUser }) : undefined;
  const initContainers = [
    ...(checkout ? [stepContainer(checkout.name, checkout, buildEnv, mounted)] : []),
    ...(restore ? [restore] : []),
    ...serviceSidecars(step, services, mounted, serviceStartGraceSeconds, runAsUser),
    ...(save ? [save] : []),
  ];
  // A build step logs in to its registries with its registry login, else the pod's first pull secret (build-container.ts).
  const auth = step.build ? registryAuth(registryLogin !== undefined ? [registryLogin] : [...new Set(pullSecrets)]) : undefined;
  const storage = step.build ? builderStorage() : undefined;
  const volumes = [...(workspace ? [workspaceVolume(workspace)] : []), ...(cache ? [{ name: CACHE_SCRATCH.volume, emptyDir: {} }, cacheUrlsVolume(cache)] : []), ...(auth ? [auth.volume] : []), ...(storage ? [storage.volume] : [])];
  const built = stepContainer(STEP_CONTAINER, step, buildEnv, mounted, { scratch: cache !== undefined, awaitSave: save !== undefined, keepArtifacts: cache?.artifacts !== undefined || cache?.reports !== undefined, ...(cache ? { handOverWords: handOverWords(cache) } : {}) }, notes);
  const main = {
    ...built,
    ...(auth ? { env: [...(built.env ?? []), ...Object.entries(auth.env).map(([name, value]) => ({ name, value }))] } : {}),
    ...(auth || storage ? { volumeMounts: [...(built.volumeMounts ?? []), ...(auth ? [auth.mount] : []), ...(storage ? [storage.mount] : [])] } : {}),
  };
  const { nodeSelector, tolerations } = stepPlacement(step, placement);
  const found = workspace && 'claimName' in workspace ? workspace : undefined;
  // The claim's node only where it is surely there still (workspaceAffinity).
  const claim = found && !pinsToWorkspaceNode({ attempt, redrive }) ? { claimName: found.claimName } : found;
  const secrets = [...new Set(pullSecrets)];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: stepPodName(buildId, step.name, attempt, redrive),
      namespace,
      labels: {
        ...extraLabels,
        [Labels.managedBy]: MANAGED_BY,
        [Labels.build]: labelValue(buildId),
        [Labels.step]: labelValue(step.name),
        ...(repository && labelValue(repository) ? { [Labels.repository]: labelValue(repository) } : {}),
        ...(step.matrix ? { [Labels.matrix]: labelValue(step.matrix.of) } : {}),
        ...(claim ? { [Labels.workspace]: claim.claimName } : {}),
      },
      annotations: {
        ...(disruptible ? {} : DO_NOT_DISRUPT_ANNOTATIONS),
        [Annotations.build]: buildId,
        [Annotations.step]: step.name,
        ...(repository ? { [Annotations.repository]: repository } : {}),
        ...(keepForSeconds !== undefined ? { [BUILD_DEADLINE_ANNOTATION]: String(keepForSeconds) } : {}),
        ...(attempt > 0 ? { [Annotations.attempt]: String(attempt + 1) } : {}),
        ...(step.build ? { [Annotations.dockerfile]: JSON.stringify({ file: step.build.dockerfile, stages: step.build.instructionLines ?? [] }) } : {}),
        ...(retry && retry.left > 0 && retry.on.length > 0 ? { [Annotations.attemptsLeft]: String(retry.left), [Annotations.retryOn]: retry.on.join(',') } : {}),
      },
    },
    spec: {
      // One attempt per pod: a retry is a decision of the state machine, never of the kubelet.
      restartPolicy: 'Never',
      activeDeadlineSeconds: step.timeoutSeconds,
      terminationGracePeriodSeconds: STEP_TERMINATION_GRACE_SECONDS,
      // A step with an identity runs as its service account, which EKS Pod Identity associates
      // with the identity's role: its admission webhook then gives every container of this pod
      // (the step's services and cache containers too: they share the pod) AWS_CONTAINER_* and a
      // token of its own, audience pods.eks.amazonaws.com, whatever automountServiceAccountToken
      // says (docs.aws.amazon.com/eks/latest/userguide/pod-id-how-it-works.html). Other pods run
      // as the namespace's `default` account, and none gets a Kubernetes API token either way.
      ...(step.identity !== undefined ? { serviceAccountName: identityServiceAccount(step.identity) } : {}),
      // A build's commands have no business talking to the cluster that runs them, nor finding
      // the namespace's Services through injected variables.
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      ...(runAsUser !== undefined ? { securityContext: nonRoot(runAsUser) } : {}),
      ...(volumes.length > 0 ? { volumes } : {}),
      ...(claim ? { affinity: workspaceAffinity(claim) } : {}),
      ...(nodeSelector ? { nodeSelector } : {}),
      ...(tolerations ? { tolerations: tolerations.map(podToleration) } : {}),
      ...(secrets.length > 0 ? { imagePullSecrets: secrets.map((name) => ({ name })) } : {}),
      // `db:5432` as well as `localhost:5432`, as on GitLab: the services share the pod's network.
      ...(services.length > 0 ? { hostAliases: [{ ip: '127.0.0.1', hostnames: services.map((service) => service.name) }] } : {}),
      ...(initContainers.length > 0 ? { initContainers } : {}),
      containers: [main],
    },
  };
}

function podToleration(t: Toleration): V1Toleration {
  return {
    ...(t.key !== undefined ? { key: t.key } : {}),
    operator: t.operator,
    ...(t.value !== undefined ? { value: t.value } : {}),
    ...(t.effect !== undefined ? { effect: t.effect } : {}),
    ...(t.tolerationSeconds !== undefined ? { tolerationSeconds: t.tolerationSeconds } : {}),
  };
}

/**
 * fsGroup: the kubelet makes the volume's files group-owned and group-writable, so a non-root
 * step can write the workspace (and what the clone wrote there) on a claim or an emptyDir alike.
 */
function nonRoot(user: number): V1PodSecurityContext {
  return { runAsNonRoot: true, runAsUser: user, runAsGroup: user, fsGroup: user };
}

function workspaceVolume(workspace: PodWorkspace): V1Volume {
  return 'claimName' in workspace
    ? { name: WORKSPACE_VOLUME, persistentVolumeClaim: { claimName: workspace.claimName } }
    : { name: WORKSPACE_VOLUME, emptyDir: {} };
}

/**
 * `scratch`: the cache's scratch directory is mounted (and named to the script by its variable);
 * `awaitSave`: the script hands over to the save sidecar and waits for it before exiting 0;
 * `keepArtifacts`: it hands over however its commands end (the sidecar keeps the artifacts and
 * sends the test reports), and says so in `handOverWords`.
 */
function stepContainer(
  name: string,
  step: Step,
  buildEnv: Record<string, string>,
  mounted: boolean,
  cache: { scratch: boolean; awaitSave: boolean; keepArtifacts?: boolean; handOverWords?: string } = { scratch: false, awaitSave: false },
  notes: readonly string[] = [],
): V1Container {
  const resources = stepResources(step.resources);
  const scratch = cache.scratch ? stepScratchMount() : undefined;
  const mounts = [...(mounted ? [{ name: WORKSPACE_VOLUME, mountPath: WORKSPACE_PATH }] : []), ...(scratch ? [scratch.mount] : [])];
  // A build step runs the builder's script with the builder's permissions (build-container.ts).
  const builder = step.build ? builderContainerParts({ ...step, build: step.build }, buildEnv, WORKSPACE_PATH) : undefined;
  const script = builder
    ? builder.script
    : stepScript(step.commands ?? [], { ...(step.shownAs ? { shownAs: step.shownAs } : {}), ...(notes.length > 0 ? { notes } : {}), ...(cache.scratch ? { cacheLog: true } : {}), ...(cache.awaitSave ? { awaitSave: true } : {}), ...(cache.keepArtifacts ? { keepArtifacts: true } : {}), ...(cache.handOverWords ? { handOverWords: cache.handOverWords } : {}) });
  return {
    name,
    image: step.image,
    imagePullPolicy: PullPolicies[step.pull],
    command: ['/bin/sh', '-c', literal(script)],
    env: [...stepEnv(step, { ...buildEnv, ...builder?.env }), ...(scratch ? [scratch.env] : [])],
    ...(mounted ? { workingDir: WORKSPACE_PATH } : {}),
    ...(mounts.length > 0 ? { volumeMounts: mounts } : {}),
    ...(resources ? { resources } : {}),
    securityContext: builder ? builder.securityContext : hardened(),
    ...(builder ? { terminationMessagePath: builder.terminationMessagePath, terminationMessagePolicy: builder.terminationMessagePolicy } : {}),
  };
}

function hardened(): V1SecurityContext {
  return {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
    // runAsNonRoot is not set unless the deployment names a user (runAsUser): most CI images
    // (node, python, alpine...) run as root by default and would fail to start with
    // CreateContainerConfigError. Dropping every capability and forbidding escalation
    // already takes most of root's power.
  };
}

/**
 * What a service running as root may keep: the official database and broker images (postgres,
 * mysql, redis, rabbitmq, mongo) start as root, chown their data directory and step down to their
 * own user (gosu, su-exec), which needs these. All are runtime defaults Pod Security `baseline`
 * allows adding; under `restricted` (runAsUser) none may be added, and those images skip the step
 * down when they start as a non-root user.
 */
export const SERVICE_CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETGID', 'SETUID'];

/**
 * The services as native sidecars (service-containers.ts), in the pipeline's order, then one port
 * gate per port after a service's first. Each runs its image's own entrypoint (or its `entrypoint` and
 * `command`) with its env and secrets (not the build's variables) and the workspace mounted, in the
 * image's own working directory.
 */
function serviceSidecars(step: Step, services: readonly Service[], mounted: boolean, graceSeconds: number, runAsUser: number | undefined): V1Container[] {
  const own = services.map((service): V1Container => {
    const [first] = service.ports;
    const base = hardened();
    return {
      name: serviceContainerName(service),
      image: service.image,
      imagePullPolicy: PullPolicies[service.pull],
      restartPolicy: 'Always',
      // entrypoint replaces the image's ENTRYPOINT, command its CMD, as the container's command
      // and args do (kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/#notes);
      // each word as written, as a step's script and env values are.
      ...(service.entrypoint ? { command: service.entrypoint.map(literal) } : {}),
      ...(service.command ? { args: service.command.map(literal) } : {}),
      env: stepEnv(service, {}),
      ...(service.ports.length > 0 ? { ports: service.ports.map((containerPort) => ({ containerPort, protocol: 'TCP' })) } : {}),
      ...(first !== undefined ? { startupProbe: portProbe(first, graceSeconds) } : {}),
      ...(mounted ? { volumeMounts: [{ name: WORKSPACE_VOLUME, mountPath: WORKSPACE_PATH }] } : {}),
      securityContext: { ...base, capabilities: { drop: ['ALL'], ...(runAsUser === undefined ? { add: SERVICE_CAPABILITIES } : {}) } },
    };
  });
  const gates = services.flatMap((service) =>
    service.ports.slice(1).map(
      (port): V1Container => ({
        name: portGateContainerName(port),
        image: step.image,
        imagePullPolicy: PullPolicies[step.pull],
        restartPolicy: 'Always',
        command: ['/bin/sh', '-c', PORT_GATE_SCRIPT],
        startupProbe: portProbe(port, graceSeconds),
        securityContext: hardened(),
      }),
    ),
  );
  return [...own, ...gates];
}

/**
 * Whether a pod is pinned to the node the claim's volume was made on (its selected node): only a
 * pod of the build's first run, on its first attempt (workspaceAffinity says why).
 */
export function pinsToWorkspaceNode({ attempt = 0, redrive = 0 }: { attempt?: number; redrive?: number }): boolean {
  return attempt === 0 && redrive === 0;
}

/**
 * Every pod of a build on one node from its first pod on, whatever the storage class: a
 * ReadWriteOnce volume attached to one node cannot be mounted on another while it is attached
 * there, so a pod elsewhere would wait on Multi-Attach errors. Required, not preferred, for that.
 *
 * - Pod affinity to the pods labelled with the same claim, per hostname. kube-scheduler's
 *   InterPodAffinity filter (kubernetes/kubernetes pkg/scheduler/framework/plugins/interpodaffinity,
 *   filtering.go satisfyPodAffinity) lets a pod go to any node when no pod matches its terms and it
 *   matches them itself: the build's first pod, or several first pods at once (`needs: []` with
 *   `checkout: false`), of which the scheduler places one at a time, the later ones then seeing the
 *   first assumed on its node. Every later pod that overlaps a live one goes to that one's node.
 * - Only live pods count: the scheduler's pod informer leaves out Succeeded and Failed pods
 *   (pkg/scheduler/scheduler.go newPodInformer, field selector status.phase!=Succeeded,Failed), so
 *   a finished step (even one kept until the build ends) holds no later pod. That is enough:
 *   while any pod of the build runs, the volume is attached to its node and the next pod goes there;
 *   once all have ended, the volume detaches and any node is right (a Multi-Attach while it still
 *   detaches is transient, classify.ts's workspace grace). A pod being deleted still counts, as it
 *   still holds the volume.
 * - The selected-node pin beside it, once a WaitForFirstConsumer claim has one, for a pod of the
 *   build's first run tried for the first time (pinsToWorkspaceNode): its node ran the build's
 *   previous pod seconds before, and staying there spares a detach and attach between sequential
 *   steps. Not for a re-run's pod (a redrive, up to FAILED_WORKSPACE_KEEP_SECONDS, 24 h, after the
 *   failure) nor a retry's (StepInterrupted: most often its node went away): the annotation names
 *   the node the volume was first made on and is never updated, and a node left empty does not
 *   last (cluster-autoscaler deletes a node unneeded for 10 minutes, kubernetes/autoscaler
 *   cluster-autoscaler/FAQ.md "How does scale-down work?"; Karpenter's and EKS Auto Mode's
 *   consolidation deletes empty nodes once consolidateAfter has passed, aws/karpenter-provider-aws
 *   website/content/en/docs/concepts/disruption.md, Consolidation). Pinned to a node that is gone,
 *   a pod never schedules. Such a pod keeps to the node of a live pod of the build through the
 *   pod affinity above, the only time the volume is surely attached somewhere; with none alive
 *   it goes where the volume itself may go: a PersistentVolume's own node affinity (an EBS
 *   volume's zone, a local volume's node) is a scheduling constraint of every pod that uses it
 *   (kubernetes/kubernetes pkg/scheduler/framework/plugins/volumebinding, binder.go
 *   checkBoundClaims).
 *
 * Tekton's affinity assistant does the same with a placeholder pod per workspace that every
 * TaskRun pod has affinity to (tekton.dev/docs/pipelines/affinityassistants): that also keeps a
 * quiet workspace's node, at the cost of one more pod to run, place and clean up. Here the pin to
 * the selected node covers WaitForFirstConsumer classes, and an Immediate class's volume may move
 * between sequential steps, which costs an attach, never a Multi-Attach deadlock.
 */
export function workspaceAffinity({ claimName, node }: { claimName: string; node?: string }): V1Affinity {
  return {
    ...(node ? { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: HOSTNAME_LABEL, operator: 'In', values: [node] }] }] } } } : {}),
    podAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { [Labels.workspace]: claimName } }, topologyKey: HOSTNAME_LABEL }],
    },
  };
}

/**
 * The kubelet expands `$(NAME)` in command, args and env values and turns `$$` into `$`: a script's
 * `kill $$` would reach the shell as `kill $`, and `echo $(CI)` as the value of CI. Every `$`
 * doubled reaches the container as written, so only the shell expands what the user wrote.
 */
export function literal(text: string): string {
  return text.replace(/\$/g, '$$$$');
}

function stepEnv(step: Pick<Step, 'env' | 'secrets'>, buildEnv: Record<string, string>): V1EnvVar[] {
  const own = new Set([...Object.keys(step.env), ...step.secrets.map((s) => s.env)]);
  const build = Object.entries(buildEnv)
    .filter(([name]) => !own.has(name))
    .map(([name, value]) => ({ name, value }));
  const plain = [...build, ...Object.entries(step.env).map(([name, value]) => ({ name, value }))].map(({ name, value }) => ({ name, value: literal(value) }));
  // Only a reference goes into the spec: the value stays in the Secret, out of the pod's JSON,
  // the events and the state machine's inputs and outputs.
  const secret = step.secrets.map(({ env, secret: name, key }) => ({
    name: env,
    valueFrom: { secretKeyRef: { name, key } },
  }));
  return [...plain, ...secret];
}

/**
 * Requests equal to limits: what a step may use is exactly what the scheduler reserved for it, and
 * with both cpu and memory given the pod is in the Guaranteed QoS class (evicted last).
 */
function stepResources(resources: StepResources | undefined): V1ResourceRequirements | undefined {
  const amounts: Record<string, string> = {};
  if (resources?.cpu) amounts.cpu = resources.cpu;
  if (resources?.memory) amounts.memory = resources.memory;
  if (Object.keys(amounts).length === 0) return undefined;
  return { requests: { ...amounts }, limits: { ...amounts } };
}

/** What the step's log says while the sidecar works after the commands, however they ended. */
function handOverWords(cache: PodCachePlan): string {
  if (cache.artifacts && cache.reports) return 'keeping the artifacts and sending the test reports';
  return cache.reports ? 'sending the test reports' : 'keeping the artifacts';
}
