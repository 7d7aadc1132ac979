/**
 * The wire form of the objects the embedded API serves: plain JSON exactly as the real API sends it
 * (timestamps are RFC 3339 strings), typed only as far as the server and the kubelet read them.
 */

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name?: string; key: string; optional?: boolean };
    fieldRef?: { fieldPath: string };
    [key: string]: unknown;
  };
}

export interface ResourceList {
  cpu?: string;
  memory?: string;
  [key: string]: string | undefined;
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  subPath?: string;
  readOnly?: boolean;
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  workingDir?: string;
  volumeMounts?: VolumeMount[];
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  resources?: { requests?: ResourceList; limits?: ResourceList };
  /** Init containers only: `Always` makes it a sidecar (KEP-753), started in order and kept running beside the containers. */
  restartPolicy?: string;
  [key: string]: unknown;
}

/** A pod volume: its name and one source (`persistentVolumeClaim`, `emptyDir`, `configMap`, ...). */
export interface Volume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  emptyDir?: { medium?: string; sizeLimit?: string };
  [source: string]: unknown;
}

export interface NodeSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface Affinity {
  nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: NodeSelectorTerm[] } };
  [kind: string]: unknown;
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastProbeTime: string | null;
  lastTransitionTime: string;
}

export interface ContainerState {
  waiting?: { reason: string; message?: string };
  running?: { startedAt: string };
  terminated?: {
    exitCode: number;
    signal?: number;
    reason: string;
    message?: string;
    startedAt?: string | null;
    finishedAt: string;
    containerID?: string;
  };
}

export interface ContainerStatus {
  name: string;
  image: string;
  imageID: string;
  containerID?: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  state: ContainerState;
  lastState: ContainerState;
}

export interface PodSpec {
  /** Run one by one, each to a successful exit (a sidecar, restartPolicy Always: until it has started), before the containers start. */
  initContainers?: Container[];
  containers: Container[];
  volumes?: Volume[];
  affinity?: Affinity;
  nodeSelector?: Record<string, string>;
  restartPolicy?: string;
  activeDeadlineSeconds?: number;
  terminationGracePeriodSeconds?: number;
  nodeName?: string;
  /** The scheduler that may place the pod; the API server's default is `default-scheduler`. */
  schedulerName?: string;
  /** KEP-3521: no scheduler takes the pod while any is left (set at creation, only removed after). */
  schedulingGates?: { name: string }[];
  serviceAccountName?: string;
  [key: string]: unknown;
}

export interface PodStatus {
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  reason?: string;
  message?: string;
  conditions?: PodCondition[];
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  qosClass?: string;
}

export interface Pod extends KubeObject {
  spec: PodSpec;
  status?: PodStatus;
}

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface EventSeries {
  count: number;
  lastObservedTime: string;
}

/**
 * A core/v1 Event as the API sends it. The legacy recorder (kubelet, controllers) fills source,
 * first/lastTimestamp and count; an event written through events.k8s.io (the scheduler) has
 * `source: {}`, null first/lastTimestamp and no count, and carries eventTime, series and action.
 */
export interface CoreEvent extends KubeObject {
  involvedObject: ObjectReference & { kind: string; name: string };
  reason: string;
  message: string;
  type: 'Normal' | 'Warning';
  source: { component?: string; host?: string };
  firstTimestamp: string | null;
  lastTimestamp: string | null;
  count?: number;
  eventTime: string | null;
  series?: EventSeries;
  action?: string;
  related?: ObjectReference;
  reportingComponent: string;
  reportingInstance: string;
}

/** The same Event as events.k8s.io/v1 serves it (staging/src/k8s.io/api/events/v1/types.go). */
export interface EventsV1Event extends KubeObject {
  eventTime: string | null;
  series?: EventSeries;
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding: ObjectReference;
  related?: ObjectReference;
  note?: string;
  type?: string;
  deprecatedSource: { component?: string; host?: string };
  deprecatedFirstTimestamp: string | null;
  deprecatedLastTimestamp: string | null;
  deprecatedCount?: number;
}

export interface PersistentVolumeClaim extends KubeObject {
  spec: {
    accessModes?: string[];
    storageClassName?: string;
    volumeName?: string;
    volumeMode?: string;
    resources?: { requests?: ResourceList };
    [key: string]: unknown;
  };
  status?: { phase: 'Pending' | 'Bound' | 'Lost'; accessModes?: string[]; capacity?: ResourceList };
}

export interface StorageClass extends KubeObject {
  provisioner: string;
  parameters?: Record<string, string>;
  reclaimPolicy: 'Delete' | 'Retain';
  volumeBindingMode: 'Immediate' | 'WaitForFirstConsumer';
  allowVolumeExpansion?: boolean;
}

export interface Secret extends KubeObject {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  type?: string;
}

/** Kubernetes timestamps carry whole seconds on the wire. */
export function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** metav1.MicroTime (an Event's eventTime and series time): six fractional digits. */
export function formatMicroTime(date: Date): string {
  return date.toISOString().replace(/Z$/, '000Z');
}

/** Storage key of an object; cluster-scoped objects have no namespace. */
export function keyOf(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}
