/**
 * Starting a build's execution, behind one interface: Step Functions on AWS, the local executor's
 * registry on a laptop (lib/local/server/executions.ts). Either way a second start under the same name
 * starts nothing and answers with the execution that already exists.
 *
 * How Step Functions (Standard) answers a second StartExecution under a name it has seen:
 * - the first execution still RUNNING and the input identical: 200, with that execution's
 *   executionArn and startDate (idempotent; nothing new starts);
 * - the input different, or the first execution closed (SUCCEEDED, FAILED, TIMED_OUT, ABORTED),
 *   whatever the input: ExecutionAlreadyExists.
 * A redelivery of a webhook is the same name and input, so it gets the 200 while its build runs and
 * ExecutionAlreadyExists once the build has ended; neither is an error for the sender.
 */
import { StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { ExecutionInput } from '../contract/index.js';
import { consoleUrlFor, executionArnFor } from './execution-name.js';

export interface StartedExecution {
  executionArn: string;
  executionName: string;
  /** Where a person watches it: the Step Functions console, or the local server's /executions/NAME. */
  consoleUrl: string;
  /**
   * True when the name was taken and this start was refused (ExecutionAlreadyExists, or an entry
   * in the local registry): nothing new was started. False for an execution this call started, and
   * also for an identical start of a running execution, which Step Functions answers exactly as it
   * answered the first (same ARN, same startDate): it cannot be told apart, and it started nothing.
   */
  alreadyStarted: boolean;
}

export interface ExecutionStarter {
  start(name: string, input: ExecutionInput): Promise<StartedExecution>;
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
        // Step Functions also answers 200 (with the first execution's ARN and startDate) when the
        // same name and input are started again while the first is running, so a redelivery
        // during its build lands here too, and is answered with that same execution.
        return started(output.executionArn ?? executionArnFor(stateMachineArn, name), false);
      } catch (error) {
        // The name is taken: by this delivery's build, which has ended (a redelivery after the
        // build), or by one started with another input under the same delivery id. Either way no
        // second build starts, and the sender is told which execution holds the name, not a 500.
        if ((error as Error).name === 'ExecutionAlreadyExists') return started(executionArnFor(stateMachineArn, name), true);
        throw error;
      }
    },
  };
}
