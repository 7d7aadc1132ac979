/**
 * Starting a build's execution, behind one interface: Step Functions on AWS, the local executor's
 * registry on a laptop (lib/local/executions.ts). Either way a second start under the same name
 * starts nothing and answers with the execution that already exists.
 */
import { StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { BuildInput } from '../workflow/state-data.js';
import { consoleUrlFor, executionArnFor } from './execution-name.js';

export interface StartedExecution {
  executionArn: string;
  executionName: string;
  /** Where a person watches it: the Step Functions console, or the local server's /executions/NAME. */
  consoleUrl: string;
  /** True when this name was started before (a redelivery): nothing new was started. */
  alreadyStarted: boolean;
}

export interface ExecutionStarter {
  start(name: string, input: BuildInput): Promise<StartedExecution>;
}

export function stepFunctionsStarter(client: Pick<SFNClient, 'send'>, stateMachineArn: string): ExecutionStarter {
  return {
    async start(name, input) {
      const started = (executionArn: string, alreadyStarted: boolean): StartedExecution => ({
        executionArn,
        executionName: name,
        consoleUrl: consoleUrlFor(executionArn),
        alreadyStarted,
      });
      try {
        const output = await client.send(
          new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }),
        );
        // Step Functions also answers 200 (with the first execution's ARN) when the same name and
        // input are started again while the first is running, so a redelivery can land here too.
        return started(output.executionArn ?? executionArnFor(stateMachineArn, name), false);
      } catch (error) {
        if ((error as Error).name === 'ExecutionAlreadyExists') return started(executionArnFor(stateMachineArn, name), true);
        throw error;
      }
    },
  };
}
