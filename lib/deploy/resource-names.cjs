'use strict';
/**
 * Names serverless.yml gives AWS resources whose name has a length limit the stage could break.
 * CommonJS because the Framework's `${file(x.cjs):name}` loads it with require() and calls the
 * exported function with its variable resolver.
 */
/* global require, module */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS on purpose (above)
const { createHash } = require('node:crypto');

/** EventBridge: 1 to 64 characters of [.-_A-Za-z0-9] (PutRule's Name). */
const RULE_NAME_MAX = 64;
const ENDED_EXECUTION_SUFFIX = 'execution-ended';
const HASH_LENGTH = 10;

/**
 * The cleanup rule's name: `SERVICE-STAGE-execution-ended` when that fits; else cut short, with a
 * hash of the whole name before the suffix, so that two long stages that begin alike still get
 * rules of their own (names are unique per account and region) and the name still says what it is.
 */
function endedExecutionRuleName(service, stage) {
  const full = `${service}-${stage}-${ENDED_EXECUTION_SUFFIX}`;
  if (full.length <= RULE_NAME_MAX) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, HASH_LENGTH);
  const room = RULE_NAME_MAX - ENDED_EXECUTION_SUFFIX.length - HASH_LENGTH - 2;
  return `${`${service}-${stage}`.slice(0, room).replace(/-+$/, '')}-${hash}-${ENDED_EXECUTION_SUFFIX}`;
}

module.exports = {
  RULE_NAME_MAX,
  endedExecutionRuleName,
  /** serverless.yml: `name: ${file(lib/deploy/resource-names.cjs):endedExecutionRule}`. */
  endedExecutionRule: async ({ resolveVariable }) =>
    endedExecutionRuleName(await resolveVariable('self:service'), await resolveVariable('sls:stage')),
};
