/**
 * The local server's executions, in memory: the ExecutionStarter the webhook handler uses locally
 * (in place of Step Functions), and what GET /executions shows. A name is registered before the
 * build starts, synchronously, so two deliveries of one delivery id race to one build.
 */
import type { ExecutionStarter, StartedExecution } from '../forge/execution-starter.js';
import type { BuildInput } from '../workflow/state-data.js';
import { localExecutionArn, summarize, type ExecutionEvent, type ExecutionStatus, type ExecutionSummary, type LocalExecution } from './executor.js';

/** `run --json`'s object; RUNNING until the execution ends. */
export type ExecutionView = Omit<ExecutionSummary, 'status'> & { status: ExecutionStatus | 'RUNNING' };

export interface ListedExecution extends ExecutionView {
  name: string;
  executionArn: string;
  startedAt: string;
  stoppedAt: string | null;
  buildId: string;
  trigger: string | null;
  repository: string | null;
  commit: string | null;
  ref: string | null;
}

export interface LocalExecutionsOptions {
  /** Starts one build: startLocalExecution with the server's settings. */
  run(name: string, input: BuildInput, onEvent: (event: ExecutionEvent) => void): LocalExecution;
  /** Where a person looks at an execution: the local server's /executions/NAME. */
  consoleUrl(name: string): string;
  /** Each history event as it happens, e.g. to print it like the console. */
  onEvent?(name: string, input: BuildInput, event: ExecutionEvent): void;
  onEnd?(name: string, summary: ExecutionSummary): void;
  now?(): Date;
}

interface Entry {
  name: string;
  input: BuildInput;
  startedAt: Date;
  history: ExecutionEvent[];
  execution: LocalExecution | undefined;
  summary: ExecutionSummary | undefined;
  stoppedAt: Date | undefined;
  done: Promise<void>;
}


export class LocalExecutions implements ExecutionStarter {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: LocalExecutionsOptions) {}

  async start(name: string, input: BuildInput): Promise<StartedExecution> {
    const answer = (alreadyStarted: boolean): StartedExecution => ({
      executionArn: localExecutionArn(name),
      executionName: name,
      consoleUrl: this.options.consoleUrl(name),
      alreadyStarted,
    });
    if (this.entries.has(name)) return answer(true);

    const entry: Entry = {
      name,
      input,
      startedAt: this.options.now?.() ?? new Date(),
      history: [],
      execution: undefined,
      summary: undefined,
      stoppedAt: undefined,
      done: Promise.resolve(),
    };
    this.entries.set(name, entry);
    const execution = this.options.run(name, input, (event) => {
      entry.history.push(event);
      this.options.onEvent?.(name, input, event);
    });
    entry.execution = execution;
    entry.done = execution.result.then(
      (summary) => this.finish(entry, summary),
      // The executor reports failures in its summary; a rejection is a bug, shown as a failure.
      (error: unknown) =>
        this.finish(entry, { status: 'FAILED', error: 'LocalExecutorError', cause: (error as Error).message, steps: [], events: [] }),
    );
    return answer(false);
  }

  /** The run --json object of one execution. */
  get(name: string): ExecutionView | undefined {
    const entry = this.entries.get(name);
    return entry && this.view(entry);
  }

  /** Newest first. */
  list(): ListedExecution[] {
    return [...this.entries.values()].reverse().map((entry) => ({
      name: entry.name,
      executionArn: localExecutionArn(entry.name),
      startedAt: entry.startedAt.toISOString(),
      stoppedAt: entry.stoppedAt?.toISOString() ?? null,
      buildId: entry.input.build.id,
      trigger: entry.input.build.trigger ?? null,
      repository: entry.input.build.repository ?? null,
      commit: entry.input.build.commit ?? null,
      ref: entry.input.build.ref ?? null,
      ...this.view(entry),
    }));
  }

  /** Aborts what is still running (its pods are deleted) and waits for every execution to end. */
  async stopAll(): Promise<void> {
    for (const entry of this.entries.values()) if (!entry.summary) entry.execution?.abort();
    await Promise.all([...this.entries.values()].map((entry) => entry.done));
  }

  private view(entry: Entry): ExecutionView {
    if (entry.summary) return entry.summary;
    return { ...summarize(entry.history, false), status: 'RUNNING', error: null, cause: null };
  }

  private finish(entry: Entry, summary: ExecutionSummary): void {
    entry.summary = summary;
    entry.stoppedAt = this.options.now?.() ?? new Date();
    this.options.onEnd?.(entry.name, summary);
  }
}
