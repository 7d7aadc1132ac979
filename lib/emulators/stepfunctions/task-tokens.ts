/**
 * The task tokens of the callback pattern, as Step Functions keeps them, for every local execution
 * of a process (SendTaskSuccess and SendTaskFailure name a token, not an execution). A Task state
 * whose Resource ends in `.waitForTaskToken` gets a token of its own each time it is entered (each
 * attempt of a retried one too), passed as `$$.Task.Token`; the task then waits until:
 * - SendTaskSuccess: "the output of the task" becomes the state's result (it must be JSON);
 * - SendTaskFailure: the state fails with the given error and cause;
 * - its TimeoutSeconds pass: it fails with States.Timeout;
 * - its execution ends (stopped, say): the task is closed with it.
 * ("Wait for a Callback with Task Token",
 * https://docs.aws.amazon.com/step-functions/latest/dg/connect-to-resource.html#connect-wait-token;
 * SendTaskSuccess and SendTaskFailure in the Step Functions API Reference.)
 *
 * A token that was never issued is InvalidToken; one whose task has been closed (answered, timed
 * out, or its execution ended) is TaskTimedOut: "The task token has either expired or the task
 * associated with the token has already been closed" (the API Reference's errors of both calls;
 * moto's interpreter, moto/stepfunctions/parser/models.py send_task_success, raises the same two).
 */
import { randomBytes } from 'node:crypto';

/** The errors SendTaskSuccess and SendTaskFailure answer with, by their API names. */
export class TaskTokenError extends Error {
  constructor(
    override readonly name: 'InvalidToken' | 'TaskTimedOut' | 'InvalidOutput',
    message: string,
  ) {
    super(message);
  }
}

/** What a waiting task ends with: its result, its error and cause, or its execution's end (nothing waits for it any more). */
export type TaskOutcome = { output: unknown } | { error: string; cause: string } | { closed: true };

interface Waiting {
  executionArn: string;
  settle: (outcome: TaskOutcome) => void;
}

export class TaskTokens {
  private readonly waiting = new Map<string, Waiting>();
  private readonly closed = new Set<string>();

  /** A new token for a task of `executionArn`, and the outcome its task waits for. */
  issue(executionArn: string): { token: string; outcome: Promise<TaskOutcome> } {
    // Opaque, as Step Functions' own (which are long base64 strings); only its holder can answer the task.
    const token = `local-task-token-${randomBytes(24).toString('base64url')}`;
    const outcome = new Promise<TaskOutcome>((settle) => this.waiting.set(token, { executionArn, settle }));
    return { token, outcome };
  }

  /** SendTaskSuccess: `output` is the task's JSON output, as text. */
  sendTaskSuccess(token: string, output: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(output);
    } catch {
      throw new TaskTokenError('InvalidOutput', 'The provided JSON output data is invalid.');
    }
    this.answer(token, { output: parsed });
  }

  /** SendTaskFailure: both optional in the API; absent, the state fails with an empty error and cause. */
  sendTaskFailure(token: string, error = '', cause = ''): void {
    this.answer(token, { error, cause });
  }

  /** The task's TimeoutSeconds have passed: the token answers nothing any more. */
  expire(token: string): void {
    this.close(token);
  }

  /** The execution has ended: its waiting tasks are closed with it, and their tokens with them. */
  closeExecution(executionArn: string): void {
    for (const [token, waiting] of this.waiting) {
      if (waiting.executionArn !== executionArn) continue;
      this.close(token);
      waiting.settle({ closed: true });
    }
  }

  private answer(token: string, outcome: TaskOutcome): void {
    const waiting = this.waiting.get(token);
    if (!waiting) {
      if (this.closed.has(token)) throw new TaskTokenError('TaskTimedOut', 'Task Timed Out: the task token has either expired or the task associated with the token has already been closed.');
      throw new TaskTokenError('InvalidToken', 'Invalid Token: no task was given this token.');
    }
    this.close(token);
    waiting.settle(outcome);
  }

  private close(token: string): void {
    this.waiting.delete(token);
    this.closed.add(token);
  }
}
