/**
 * What a build cost, in dollars, from what it used: the one cost model of the runner. The deployed
 * functions, the local executor and the bench all price usage here, so their figures cannot
 * disagree. Pure: usage and prices in, dollars out (docs/cost.md says how exact each part is).
 *
 * The default prices are AWS's public list prices for US East (N. Virginia), recorded 2026-12-06:
 * - Step Functions, Standard workflows: $0.025 per 1,000 state transitions, retries included
 *   (https://aws.amazon.com/step-functions/pricing/).
 * - Lambda: $0.20 per 1M requests; duration $0.0000133334 per GB-second on arm64 and
 *   $0.0000166667 on x86_64, the first tier (https://aws.amazon.com/lambda/pricing/).
 * - S3 Standard: $0.023 per GB-month (first 50 TB), $0.005 per 1,000 PUT, COPY, POST or LIST
 *   requests, $0.0004 per 1,000 GET (https://aws.amazon.com/s3/pricing/).
 * - EC2 On-Demand, Linux, per instance-hour (https://aws.amazon.com/ec2/pricing/on-demand/), as
 *   AWS's Price List gives them in karpenter's generated table (aws/karpenter-provider-aws
 *   pkg/providers/pricing/zz_generated.pricing_aws.go, us-east-1, generated 2026-01-19; the test
 *   holds these to test/fixtures/cost/karpenter-on-demand-us-east-1.json).
 * - The flat rate for a node with no instance type: Fargate's Linux/x86 price, $0.04048 per
 *   vCPU-hour and $0.004445 per GB-hour (https://aws.amazon.com/fargate/pricing/), what EKS on
 *   Fargate bills a pod's requests at.
 * Free tiers, Savings Plans, Spot and reserved prices are left out: these are list prices.
 */

/** One instance type's hourly list price and its size (what the price is split over). */
export interface InstancePrice {
  hourly: number;
  vcpu: number;
  memoryGib: number;
}

export interface Prices {
  /** The region and the day the prices are for, shown beside every figure. */
  region: string;
  asOf: string;
  perTransition: number;
  lambda: { perRequest: number; perGbSecond: { arm64: number; x86_64: number } };
  s3: { perPut: number; perGet: number; perGbMonth: number };
  /** Nodes by their `node.kubernetes.io/instance-type` label. */
  instanceTypes: Readonly<Record<string, InstancePrice>>;
  /** A node with no instance type label, or one not in the table. */
  flat: { perVcpuHour: number; perGibHour: number };
}

const ec2 = (hourly: number, vcpu: number, memoryGib: number): InstancePrice => ({ hourly, vcpu, memoryGib });

/** AWS list prices, us-east-1, 2026-12-06 (see the top of this file for the pages). */
export const DEFAULT_PRICES: Prices = {
  region: 'us-east-1',
  asOf: '2026-12-06',
  perTransition: 0.025 / 1000,
  lambda: { perRequest: 0.2 / 1_000_000, perGbSecond: { arm64: 0.0000133334, x86_64: 0.0000166667 } },
  s3: { perPut: 0.005 / 1000, perGet: 0.0004 / 1000, perGbMonth: 0.023 },
  instanceTypes: {
    't3.medium': ec2(0.0416, 2, 4),
    't3.large': ec2(0.0832, 2, 8),
    't3.xlarge': ec2(0.1664, 4, 16),
    't4g.medium': ec2(0.0336, 2, 4),
    't4g.large': ec2(0.0672, 2, 8),
    't4g.xlarge': ec2(0.1344, 4, 16),
    'c5.large': ec2(0.085, 2, 4),
    'c5.xlarge': ec2(0.17, 4, 8),
    'c5.2xlarge': ec2(0.34, 8, 16),
    'c6i.large': ec2(0.085, 2, 4),
    'c6i.xlarge': ec2(0.17, 4, 8),
    'c6i.2xlarge': ec2(0.34, 8, 16),
    'c6g.large': ec2(0.068, 2, 4),
    'c6g.xlarge': ec2(0.136, 4, 8),
    'c6g.2xlarge': ec2(0.272, 8, 16),
    'c7g.large': ec2(0.0725, 2, 4),
    'c7g.xlarge': ec2(0.145, 4, 8),
    'c7g.2xlarge': ec2(0.29, 8, 16),
    'm5.large': ec2(0.096, 2, 8),
    'm5.xlarge': ec2(0.192, 4, 16),
    'm5.2xlarge': ec2(0.384, 8, 32),
    'm6i.large': ec2(0.096, 2, 8),
    'm6i.xlarge': ec2(0.192, 4, 16),
    'm6i.2xlarge': ec2(0.384, 8, 32),
    'm6g.large': ec2(0.077, 2, 8),
    'm6g.xlarge': ec2(0.154, 4, 16),
    'm6g.2xlarge': ec2(0.308, 8, 32),
    'm7g.large': ec2(0.0816, 2, 8),
    'm7g.xlarge': ec2(0.1632, 4, 16),
    'm7g.2xlarge': ec2(0.3264, 8, 32),
    'm7i.large': ec2(0.1008, 2, 8),
    'm7i.xlarge': ec2(0.2016, 4, 16),
    'm7i.2xlarge': ec2(0.4032, 8, 32),
    'r5.large': ec2(0.126, 2, 16),
    'r5.xlarge': ec2(0.252, 4, 32),
    'r6g.large': ec2(0.1008, 2, 16),
    'r6g.xlarge': ec2(0.2016, 4, 32),
  },
  flat: { perVcpuHour: 0.04048, perGibHour: 0.004445 },
};

/**
 * How a node's hourly price is split between a vCPU and a GiB, as OpenCost splits a node's total
 * price when it has no component prices: the ratio of its default CPU and RAM prices
 * (opencost/opencost configs/default.json: CPU 0.031611 per core-hour, RAM 0.004237 per GiB-hour),
 * then ramPrice = nodePrice / (cpus * ratio + ramGiB), cpuPrice = ramPrice * ratio
 * (opencost/opencost pkg/costmodel/costmodel.go, GetNodeCost). A pod is then charged as OpenCost
 * and Kubecost charge it on that node.
 */
export const OPENCOST_CPU_TO_RAM_RATIO = 0.031611 / 0.004237;

export function splitNodePrice(node: InstancePrice): { perVcpuHour: number; perGibHour: number } {
  const perGibHour = node.hourly / (node.vcpu * OPENCOST_CPU_TO_RAM_RATIO + node.memoryGib);
  return { perVcpuHour: perGibHour * OPENCOST_CPU_TO_RAM_RATIO, perGibHour };
}

export type LambdaArchitecture = keyof Prices['lambda']['perGbSecond'];

/** A step pod's requests, for how long, and on what node. */
export interface PodUsage {
  step: string;
  /** The pod's effective CPU request, in cores (kube/pod-requests.ts). */
  cpu: number;
  memoryBytes: number;
  seconds: number;
  /** Its node's `node.kubernetes.io/instance-type`; null: none, or it could not be read. */
  instanceType: string | null;
}

/** A step's S3 requests and the bytes it left there (FinishStep's count: its logs, artifacts and record). */
export interface StepS3Usage {
  puts: number;
  gets: number;
  bytes: number;
}

/** What a build used, as counted (docs/cost.md: where each count comes from). */
export interface BuildUsage {
  transitions: number;
  lambda: { invocations: number; gbSeconds: number; architecture: LambdaArchitecture };
  s3: { puts: number; gets: number; bytesWritten: number };
  pods: PodUsage[];
}

/** Dollars, by part: the contract's `cost: {usd, parts}` (plus the usage they were priced from). */
export interface BuildCost {
  usd: number;
  parts: { stepFunctions: number; lambda: number; s3: number; pods: number };
  usage: BuildUsage;
  prices: { region: string; asOf: string };
}

const GIB = 1024 ** 3;

/** Step Functions' transitions, Lambda's requests and GB-seconds: what the bench's figures are. */
export const orchestrationDollars = (transitions: number, invocations: number, gbSeconds: number, architecture: LambdaArchitecture = 'arm64', prices: Prices = DEFAULT_PRICES): number =>
  transitions * prices.perTransition + lambdaDollars(invocations, gbSeconds, architecture, prices);

const lambdaDollars = (invocations: number, gbSeconds: number, architecture: LambdaArchitecture, prices: Prices) =>
  invocations * prices.lambda.perRequest + gbSeconds * prices.lambda.perGbSecond[architecture];

/** One pod's requests for its time, at its node's split price or the flat rate. */
export function podDollars(pod: PodUsage, prices: Prices = DEFAULT_PRICES): number {
  const node = pod.instanceType ? prices.instanceTypes[pod.instanceType] : undefined;
  const rate = node ? splitNodePrice(node) : prices.flat;
  return (pod.cpu * rate.perVcpuHour + (pod.memoryBytes / GIB) * rate.perGibHour) * (pod.seconds / 3600);
}

/** S3's requests, and a month of the bytes written (the bucket keeps logs 30 days). */
export const s3Dollars = (s3: BuildUsage['s3'], prices: Prices = DEFAULT_PRICES): number =>
  s3.puts * prices.s3.perPut + s3.gets * prices.s3.perGet + (s3.bytesWritten / 1e9) * prices.s3.perGbMonth;

export function buildCost(usage: BuildUsage, prices: Prices = DEFAULT_PRICES): BuildCost {
  const parts = {
    stepFunctions: usage.transitions * prices.perTransition,
    lambda: lambdaDollars(usage.lambda.invocations, usage.lambda.gbSeconds, usage.lambda.architecture, prices),
    s3: s3Dollars(usage.s3, prices),
    pods: usage.pods.reduce((sum, pod) => sum + podDollars(pod, prices), 0),
  };
  return { usd: parts.stepFunctions + parts.lambda + parts.s3 + parts.pods, parts, usage, prices: { region: prices.region, asOf: prices.asOf } };
}

/** A deployment's price table (COST_PRICES), refused with what is wrong. */
export class InvalidPrices extends Error {
  override readonly name = 'InvalidPrices';
}

/**
 * The defaults with a deployment's own prices over them: `{region, asOf, instanceTypes: {TYPE:
 * {hourly, vcpu, memoryGib}}, flat: {perVcpuHour, perGibHour}}`, every key optional; a type named
 * adds to (or replaces one of) the defaults.
 */
export function pricesWith(text: string | undefined, base: Prices = DEFAULT_PRICES): Prices {
  if (!text?.trim()) return base;
  let given: Record<string, unknown>;
  try {
    given = JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new InvalidPrices(`COST_PRICES is not JSON: ${(error as Error).message}`);
  }
  const positive = (where: string, value: unknown): number => {
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
    throw new InvalidPrices(`COST_PRICES: ${where} is ${JSON.stringify(value)}, not a number of dollars (or of vCPUs, GiB)`);
  };
  const types = (given.instanceTypes ?? {}) as Record<string, Partial<InstancePrice>>;
  const instanceTypes: Record<string, InstancePrice> = { ...base.instanceTypes };
  for (const [type, price] of Object.entries(types)) {
    instanceTypes[type] = { hourly: positive(`instanceTypes.${type}.hourly`, price?.hourly), vcpu: positive(`instanceTypes.${type}.vcpu`, price?.vcpu), memoryGib: positive(`instanceTypes.${type}.memoryGib`, price?.memoryGib) };
  }
  const flat = given.flat as Partial<Prices['flat']> | undefined;
  return {
    ...base,
    ...(typeof given.region === 'string' ? { region: given.region } : {}),
    ...(typeof given.asOf === 'string' ? { asOf: given.asOf } : {}),
    instanceTypes,
    ...(flat ? { flat: { perVcpuHour: positive('flat.perVcpuHour', flat.perVcpuHour), perGibHour: positive('flat.perGibHour', flat.perGibHour) } } : {}),
  };
}

const PART_WORDS: Readonly<Record<string, string>> = { stepFunctions: 'Step Functions', lambda: 'Lambda', s3: 'S3', pods: 'step pods' };

/**
 * `$0.0123 (Step Functions $0.0011, Lambda $0.0004, S3 $0.0000, step pods $0.0108; us-east-1 list
 * prices of 2026-12-06)`: to the hundredth of a cent, since a build's parts are often less than one.
 */
export function costWords(cost: Pick<BuildCost, 'usd' | 'prices'> & { parts: Record<string, number> }): string {
  const parts = Object.entries(cost.parts).map(([part, usd]) => `${PART_WORDS[part] ?? part} $${usd.toFixed(4)}`);
  return `$${cost.usd.toFixed(4)} (${parts.join(', ')}; ${cost.prices.region} list prices of ${cost.prices.asOf})`;
}

/** How the figure is made, in the runner's repository (a file and heading, as ErrorEntry.docs). */
export const COST_DOCS = 'docs/cost.md';
