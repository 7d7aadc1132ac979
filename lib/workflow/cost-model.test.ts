import { readFileSync } from 'node:fs';
import { buildCost, DEFAULT_PRICES, InvalidPrices, OPENCOST_CPU_TO_RAM_RATIO, orchestrationDollars, podDollars, pricesWith, splitNodePrice, type BuildUsage, type PodUsage } from './cost-model.js';

const GIB = 2 ** 30;
const none: BuildUsage = { transitions: 0, lambda: { invocations: 0, gbSeconds: 0, architecture: 'arm64' }, s3: { puts: 0, gets: 0, bytesWritten: 0 }, pods: [] };
const pod = (over: Partial<PodUsage>): PodUsage => ({ step: 'test', cpu: 1, memoryBytes: 2 * GIB, seconds: 3600, instanceType: null, ...over });

describe('the cost model', () => {
  // Each line: a build's usage, and the dollars AWS's list prices (us-east-1, cost-model.ts) make of it, worked by hand.
  it.each<[string, BuildUsage, { stepFunctions: number; lambda: number; s3: number; pods: number }]>([
    ['nothing', none, { stepFunctions: 0, lambda: 0, s3: 0, pods: 0 }],
    ['1,000 transitions: $0.025', { ...none, transitions: 1000 }, { stepFunctions: 0.025, lambda: 0, s3: 0, pods: 0 }],
    ['1M requests and 1 GB-s on arm64', { ...none, lambda: { invocations: 1_000_000, gbSeconds: 1, architecture: 'arm64' } }, { stepFunctions: 0, lambda: 0.2 + 0.0000133334, s3: 0, pods: 0 }],
    ['100,000 GB-s on x86_64', { ...none, lambda: { invocations: 0, gbSeconds: 100_000, architecture: 'x86_64' } }, { stepFunctions: 0, lambda: 1.66667, s3: 0, pods: 0 }],
    ['1,000 PUTs, 1,000 GETs and a GB written (a month of it)', { ...none, s3: { puts: 1000, gets: 1000, bytesWritten: 1e9 } }, { stepFunctions: 0, lambda: 0, s3: 0.005 + 0.0004 + 0.023, pods: 0 }],
    // Fargate's price for 1 vCPU and 2 GB for an hour.
    ['a pod on a node with no instance type: the flat rate', { ...none, pods: [pod({})] }, { stepFunctions: 0, lambda: 0, s3: 0, pods: 0.04048 + 2 * 0.004445 }],
    // A c5.xlarge (4 vCPU, 8 GiB, $0.17/h) whole for an hour is its price.
    ['a pod that takes a whole c5.xlarge for an hour', { ...none, pods: [pod({ cpu: 4, memoryBytes: 8 * GIB, instanceType: 'c5.xlarge' })] }, { stepFunctions: 0, lambda: 0, s3: 0, pods: 0.17 }],
    ['half of an m5.large for half an hour', { ...none, pods: [pod({ cpu: 1, memoryBytes: 4 * GIB, seconds: 1800, instanceType: 'm5.large' })] }, { stepFunctions: 0, lambda: 0, s3: 0, pods: 0.096 / 4 }],
    ['an instance type not in the table: the flat rate', { ...none, pods: [pod({ instanceType: 'x9.huge' })] }, { stepFunctions: 0, lambda: 0, s3: 0, pods: 0.04048 + 2 * 0.004445 }],
  ])('%s', (_, usage, parts) => {
    const cost = buildCost(usage);
    for (const [part, dollars] of Object.entries(parts)) expect(cost.parts[part as keyof typeof parts]).toBeCloseTo(dollars, 9);
    expect(cost.usd).toBeCloseTo(parts.stepFunctions + parts.lambda + parts.s3 + parts.pods, 9);
    expect(cost.prices).toEqual({ region: 'us-east-1', asOf: DEFAULT_PRICES.asOf });
  });

  it("splits a node's price as OpenCost does: a vCPU costs its default ratio of a GiB, and the two add up to the node", () => {
    expect(OPENCOST_CPU_TO_RAM_RATIO).toBeCloseTo(7.4607, 4);
    for (const [type, node] of Object.entries(DEFAULT_PRICES.instanceTypes)) {
      const { perVcpuHour, perGibHour } = splitNodePrice(node);
      expect(perVcpuHour / perGibHour).toBeCloseTo(OPENCOST_CPU_TO_RAM_RATIO, 9);
      expect([type, node.vcpu * perVcpuHour + node.memoryGib * perGibHour]).toEqual([type, expect.closeTo(node.hourly, 12)]);
    }
    // Memory-heavy nodes make a GiB cheaper than compute-heavy ones of the same price per vCPU.
    expect(splitNodePrice(DEFAULT_PRICES.instanceTypes['r5.large']!).perGibHour).toBeLessThan(splitNodePrice(DEFAULT_PRICES.instanceTypes['c5.large']!).perGibHour);
  });

  it("lists each instance type at its On-Demand price in AWS's Price List, as karpenter's generated table has it (us-east-1)", () => {
    const listed = (JSON.parse(readFileSync('test/fixtures/cost/karpenter-on-demand-us-east-1.json', 'utf8')) as { prices: Record<string, number> }).prices;
    expect(Object.fromEntries(Object.entries(DEFAULT_PRICES.instanceTypes).map(([type, node]) => [type, node.hourly]))).toEqual(listed);
  });

  it("is the bench's orchestration figure for the same transitions, requests and GB-seconds", () => {
    const usage: BuildUsage = { ...none, transitions: 37, lambda: { invocations: 12, gbSeconds: 8.25, architecture: 'arm64' } };
    const cost = buildCost(usage);
    expect(cost.parts.stepFunctions + cost.parts.lambda).toBe(orchestrationDollars(37, 12, 8.25));
  });

  it('a pod priced for no time, or with no requests, costs nothing', () => {
    expect(podDollars(pod({ seconds: 0, instanceType: 'c5.xlarge' }))).toBe(0);
    expect(podDollars(pod({ cpu: 0, memoryBytes: 0 }))).toBe(0);
  });

  describe("a deployment's price table (COST_PRICES)", () => {
    it.each([
      ['nothing: the defaults', undefined, (p: typeof DEFAULT_PRICES) => expect(p).toBe(DEFAULT_PRICES)],
      ['another region and its date', '{"region":"eu-west-1","asOf":"2026-11-01"}', (p: typeof DEFAULT_PRICES) => expect([p.region, p.asOf]).toEqual(['eu-west-1', '2026-11-01'])],
      ['a type of its own beside the defaults', '{"instanceTypes":{"m8g.large":{"hourly":0.09,"vcpu":2,"memoryGib":8}}}', (p: typeof DEFAULT_PRICES) => expect([p.instanceTypes['m8g.large'], p.instanceTypes['c5.xlarge']]).toEqual([{ hourly: 0.09, vcpu: 2, memoryGib: 8 }, DEFAULT_PRICES.instanceTypes['c5.xlarge']])],
      ['a flat rate of its own (a negotiated price, an on-premises cluster)', '{"flat":{"perVcpuHour":0.02,"perGibHour":0.002}}', (p: typeof DEFAULT_PRICES) => expect(p.flat).toEqual({ perVcpuHour: 0.02, perGibHour: 0.002 })],
    ])('%s', (_, text, check) => check(pricesWith(text)));

    it.each([
      ['not JSON', '{region:', /COST_PRICES is not JSON/],
      ['a price that is no number', '{"instanceTypes":{"m5.large":{"hourly":"cheap","vcpu":2,"memoryGib":8}}}', /instanceTypes\.m5\.large\.hourly is "cheap"/],
      ['a type without its size', '{"instanceTypes":{"m5.large":{"hourly":0.1}}}', /instanceTypes\.m5\.large\.vcpu is undefined/],
      ['a negative flat rate', '{"flat":{"perVcpuHour":-1,"perGibHour":0}}', /flat\.perVcpuHour is -1/],
    ])('refuses %s, naming what', (_, text, message) => {
      expect(() => pricesWith(text)).toThrow(InvalidPrices);
      expect(() => pricesWith(text)).toThrow(message);
    });
  });
});
