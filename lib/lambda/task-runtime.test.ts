import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { DEFAULT_PRICES } from '../workflow/cost-model.js';
import { logger } from '../workflow/lambda-task.js';
import { lambdaTaskRuntime } from './task-runtime.js';

const deployed = { EKS_CLUSTER_NAME: 'ci', AWS_REGION: 'eu-west-1', STEP_RUNNER_NAMESPACE: 'builds', STEP_LOGS_BUCKET: 'logs' };

describe("lambdaTaskRuntime: the prices a step's StepCost is worked out at (COST_PRICES, as ReportStatus reads it)", () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it.each([
    { given: "COST_PRICES unset (a function serverless.yml gives none): AWS's list prices", env: {}, instanceTypes: DEFAULT_PRICES.instanceTypes },
    { given: "COST_PRICES '' (the param's default): AWS's list prices", env: { COST_PRICES: '' }, instanceTypes: DEFAULT_PRICES.instanceTypes },
    {
      given: 'a table of its own: over the defaults',
      env: { COST_PRICES: '{"instanceTypes": {"m7g.large": {"hourly": 0.0892, "vcpu": 2, "memoryGib": 8}}}' },
      instanceTypes: { ...DEFAULT_PRICES.instanceTypes, 'm7g.large': { hourly: 0.0892, vcpu: 2, memoryGib: 8 } },
    },
  ])('$given', ({ env, instanceTypes }) => {
    expect(lambdaTaskRuntime({ ...deployed, ...env }).deps.prices?.instanceTypes).toEqual(instanceTypes);
  });

  it('are none for a wrong table: the function starts all the same, and its log says what is wrong', () => {
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);

    const runtime = lambdaTaskRuntime({ ...deployed, COST_PRICES: '{"flat": {"perVcpuHour": "cheap", "perGibHour": 0.0049}}' });

    expect(runtime.deps.prices).toBeUndefined();
    expect(runtime.deps.metrics).toBeDefined();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('StepCost'), { reason: expect.stringContaining('flat.perVcpuHour is "cheap"') });
  });
});
