'use strict';
/**
 * serverless.yml: `COST_FUNCTIONS: ${file(lib/deploy/function-sizes.cjs):setting}`, the functions'
 * memory and architecture as JSON, which ReportStatus prices a build's Lambda time by
 * (lib/workflow/history-usage.ts). Read from serverless.yml by the same reader the local Lambda
 * host uses (lib/emulators/lambda/deployed-functions.ts, loaded through tsx), so the deployed
 * figure and the local one come from one reading. CommonJS because the Framework require()s it.
 */
/* global require, module, __filename */
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose (above) */

function functionSizes() {
  const tsx = require('tsx/cjs/api');
  const { readDeployedFunctions, deployedArchitecture } = tsx.require('../emulators/lambda/deployed-functions.ts', __filename);
  const memoryMb = Object.fromEntries([...readDeployedFunctions().values()].map((fn) => [fn.name, fn.memorySize]));
  return { architecture: deployedArchitecture(), memoryMb };
}

module.exports = {
  functionSizes,
  setting: async () => JSON.stringify(functionSizes()),
};
