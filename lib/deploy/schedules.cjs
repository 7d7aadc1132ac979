'use strict';
/**
 * The deployment's schedules (README, "Schedules"), read from the file params.schedulesFile names
 * (schedules.yml by default; none when it does not exist) and checked by the runner's own rules
 * (lib/forge/schedules.ts, loaded through tsx), so a bad expression, time zone or ref stops
 * `osls package` naming the schedule, before anything is deployed.
 *
 * A plugin (serverless.yml `plugins`), CommonJS because the Framework require()s it, that adds to
 * the compiled template one AWS::Scheduler::Schedule per schedule, whose target is the build state
 * machine itself: EventBridge Scheduler's templated Step Functions target calls StartExecution
 * with the target's Input as the execution input (Scheduler User Guide, "Using templated
 * targets"), with no Lambda in between; and one role Scheduler assumes for it, which may start
 * executions of that state machine and do nothing else.
 */
/* global require, module, __filename, __dirname */
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose (above) */
const { existsSync, readFileSync } = require('node:fs');
const path = require('node:path');

const DEFAULT_FILE = 'schedules.yml';
/** Where serverless.yml is: the file's name is relative to it. */
const SERVICE_DIR = path.resolve(__dirname, '../..');
/** The state machine's logical id (serverless.yml, stepFunctions.stateMachines.build.id). */
const STATE_MACHINE = 'BuildStateMachine';
const ROLE = 'ScheduleRole';

/** The runner's own rules, from its TypeScript source (tsx compiles it for require()). */
function runnerRules() {
  const tsx = require('tsx/cjs/api');
  const schedules = tsx.require('../forge/schedules.ts', __filename);
  return { checkSchedules: schedules.checkSchedules, scheduleExecutionInput: schedules.scheduleExecutionInput };
}

/** The schedules the file declares, checked; none when there is no file. */
async function readSchedules(file, { serviceDir = SERVICE_DIR, rules = runnerRules } = {}) {
  const where = path.resolve(serviceDir, file || DEFAULT_FILE);
  if (!existsSync(where)) return [];
  const YAML = require('yaml');
  const result = rules().checkSchedules(YAML.parse(readFileSync(where, 'utf8')));
  if (!result.ok) throw new Error(`${path.relative(serviceDir, where)}: ${result.problems.join('; ')}`);
  return result.value;
}

/** CloudFormation logical ids: letters and digits only. */
function logicalId(name) {
  return `Schedule${name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}`;
}

/**
 * The schedules and their role. `input(schedule)` is the execution input each starts (lib/forge/schedules.ts).
 * FlexibleTimeWindow OFF: a build at the time said, as cron users expect.
 */
function scheduleResources(schedules, { input, stackName }) {
  if (schedules.length === 0) return {};
  const role = {
    Type: 'AWS::IAM::Role',
    Properties: {
      // Only Scheduler, and only for schedules of this account (the confused-deputy condition the
      // Scheduler User Guide's "Set up the execution role" shows).
      AssumeRolePolicyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Principal: { Service: 'scheduler.amazonaws.com' },
            Action: 'sts:AssumeRole',
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          },
        ],
      },
      Policies: [
        {
          PolicyName: `${stackName}-start-build`,
          PolicyDocument: {
            Version: '2012-10-17',
            Statement: [{ Effect: 'Allow', Action: 'states:StartExecution', Resource: { Ref: STATE_MACHINE } }],
          },
        },
      ],
    },
  };
  const resources = { [ROLE]: role };
  for (const schedule of schedules) {
    resources[logicalId(schedule.name)] = {
      Type: 'AWS::Scheduler::Schedule',
      Properties: {
        // At most 512 characters (the resource's schema).
        Description: `${stackName}: build ${schedule.repository} ${schedule.ref} (schedule ${schedule.name})`.slice(0, 512),
        ScheduleExpression: schedule.expression,
        ScheduleExpressionTimezone: schedule.timezone,
        FlexibleTimeWindow: { Mode: 'OFF' },
        State: schedule.enabled ? 'ENABLED' : 'DISABLED',
        Target: {
          Arn: { Ref: STATE_MACHINE },
          RoleArn: { 'Fn::GetAtt': [ROLE, 'Arn'] },
          Input: JSON.stringify(input(schedule)),
        },
      },
    };
  }
  return resources;
}

class SchedulesPlugin {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'before:package:finalize': () => this.addSchedules() };
  }

  /** serverless.yml's `custom.schedules` (file), its params resolved. */
  async addSchedules() {
    const { service } = this.serverless;
    const { file } = service.custom?.schedules ?? {};
    const schedules = await readSchedules(file);
    const { scheduleExecutionInput } = runnerRules();
    const stackName = `${service.service}-${service.provider.stage}`;
    Object.assign(service.provider.compiledCloudFormationTemplate.Resources, scheduleResources(schedules, { input: (s) => scheduleExecutionInput(s), stackName }));
  }
}

module.exports = SchedulesPlugin;
module.exports.readSchedules = readSchedules;
module.exports.scheduleResources = scheduleResources;
