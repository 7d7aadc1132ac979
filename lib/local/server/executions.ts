/**
 * The local server's executions, in memory: the ExecutionStarter the webhook handler uses locally
 * (in place of Step Functions), and what GET /executions shows. A name is registered before the
 * build starts, synchronously, so two deliveries of one delivery id race to one build.
 */
import type { ExecutionStarter, StartedExecution } from '../../forge/execution-starter.js';
import type { BuildInput, CostSummary, WaitingStepReport } from '../../contract/index.js';
import type { StepPodView } from '../../console/pod-view.js';
import type { ExecutionChange, ExecutionDetail, ExecutionView, ListedExecution } from '../../console/execution-view.js';
import { buildIdFor } from '../../forge/execution-name.js';
import { ExecutionControlError, ExecutionDoesNotExist, ExecutionNotRunning } from '../../emulators/stepfunctions/execution-errors.js';
import { executionIdentity } from '../../emulators/stepfunctions/execution-identity.js';
import { executionInstants } from '../../emulators/stepfunctions/execution-instants.js';
import { rerunName } from './rerun-name.js';
import { ApprovalNotWaiting, type ApprovalAction, type LocalApprovals } from './approvals.js';
import type { PreparedBuild } from '../../workflow/state-data.js';
import type { Step } from '../../pipeline/index.js';
import {
  ExecutionNotRedrivable,
  localExecutionArn,
  refuseRedrive,
  summarize,
  type ExecutionEvent,
  type ExecutionSummary,
  type AbortReason,
  type LocalExecution,
} from '../../emulators/stepfunctions/executor.js';
import type { ExecutionStopper } from '../../workflow/superseding.js';

/** PrepareBuild's output: the build's steps in the order the Map iterates them. */
function preparedOf(entry: { history: readonly ExecutionEvent[] }): Partial<PreparedBuild> | undefined {
  return entry.history.find((e) => e.type === 'StateExited' && e.state?.name === 'PrepareBuild')?.state?.output as Partial<PreparedBuild> | undefined;
}

function isRedrivable(history: readonly ExecutionEvent[]): boolean {
  try {
    refuseRedrive(history);
    return true;
  } catch (error) {
    // A refusal says no; anything else is a bug in the plan, not an answer.
    if (error instanceof ExecutionControlError) return false;
    throw error;
  }
}

export interface LocalExecutionsOptions {
  /** Starts one build (startLocalExecution with the server's settings), or redrives an ended one. */
  run(name: string, input: BuildInput, onEvent: (event: ExecutionEvent) => void, redrive?: { events: readonly ExecutionEvent[]; count: number }): LocalExecution;
  /** Where a person looks at an execution: the local server's /executions/NAME. */
  consoleUrl(name: string): string;
  /** Each history event as it happens, e.g. to print it like the console. */
  onEvent?(name: string, input: BuildInput, event: ExecutionEvent): void;
  onEnd?(name: string, summary: ExecutionSummary): void;
  now?(): Date;
  /** Answers a waiting approval step (approvals.ts); absent: approvals are refused as not waiting. */
  approvals?: LocalApprovals;
}

interface Entry {
  name: string;
  pods: Map<number, StepPodView>;
  input: BuildInput;
  startedAt: Date;
  history: ExecutionEvent[];
  execution: LocalExecution | undefined;
  summary: ExecutionSummary | undefined;
  stoppedAt: Date | undefined;
  done: Promise<void>;
  rerunOf: string | undefined;
  reruns: string[];
  redriveCount: number;
  /**
   * Whether "Re-run failed steps" would be taken, decided once when the execution ends (its history
   * no longer changes then): the page's list is read several times a second, and planning a redrive
   * reads the whole history. redrive() itself asks again, at the moment it is asked.
   */
  redrivable?: boolean;
}


export class LocalExecutions implements ExecutionStarter {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(change: ExecutionChange) => void>();

  constructor(private readonly options: LocalExecutionsOptions) {}

  async start(name: string, input: BuildInput): Promise<StartedExecution> {
    return this.begin(name, input, undefined);
  }

  private begin(name: string, input: BuildInput, rerunOf: string | undefined): StartedExecution {
    const answer = (alreadyStarted: boolean): StartedExecution => ({
      executionArn: localExecutionArn(name),
      executionName: name,
      consoleUrl: this.options.consoleUrl(name),
      alreadyStarted,
    });
    if (this.entries.has(name)) return answer(true);

    const entry: Entry = {
      name,
      pods: new Map(),
      input,
      startedAt: this.options.now?.() ?? new Date(),
      history: [],
      execution: undefined,
      summary: undefined,
      stoppedAt: undefined,
      done: Promise.resolve(),
      rerunOf,
      reruns: [],
      redriveCount: 0,
    };
    this.entries.set(name, entry);
    this.notify({ kind: 'started', name });
    this.execute(entry);
    return answer(false);
  }

  private execute(entry: Entry, redrive?: { events: readonly ExecutionEvent[]; count: number }): void {
    const { name, input } = entry;
    const execution = this.options.run(
      name,
      input,
      (event) => {
        entry.history.push(event);
        this.options.onEvent?.(name, input, event);
        this.notify({ kind: 'event', name, event });
      },
      redrive,
    );
    entry.execution = execution;
    entry.done = execution.result.then(
      (summary) => this.finish(entry, summary),
      // The executor reports failures in its summary; a rejection is a bug, shown as a failure.
      (error: unknown) =>
        this.finish(entry, { status: 'FAILED', error: 'LocalExecutorError', cause: (error as Error).message, steps: [], events: [] }),
    );
  }

  /**
   * Re-runs the failed build's steps that did not succeed, in its kept workspace, as Step
   * Functions' RedriveExecution does: the same execution (name, history, input) goes on from the
   * state it failed in. Refused (ExecutionNotRedrivable) for a running build, one that succeeded,
   * or one with nothing to re-run.
   */
  async redrive(name: string): Promise<ListedExecution> {
    const entry = this.entries.get(name);
    if (!entry) throw new ExecutionDoesNotExist(`No execution named ${name} on this server.`);
    if (!entry.summary) throw new ExecutionNotRedrivable(`Execution ${name} is still running.`);
    refuseRedrive(entry.history);
    entry.redriveCount++;
    entry.summary = undefined;
    entry.stoppedAt = undefined;
    this.execute(entry, { events: [...entry.history], count: entry.redriveCount });
    this.notify({ kind: 'started', name });
    return this.listed(entry);
  }

  /**
   * Approves or rejects the running execution's waiting approval step: the build goes on, or
   * fails ApprovalRejected. Answers with the execution as it then stands.
   */
  async decide(name: string, step: string, action: ApprovalAction, comment?: string, by?: string): Promise<ListedExecution> {
    const entry = this.entries.get(name);
    if (!entry) throw new ExecutionDoesNotExist(`No execution named ${name} on this server.`);
    if (entry.summary) throw new ExecutionNotRunning(`Execution ${name} has already ended: ${entry.summary.status}.`);
    const prepared = preparedOf(entry);
    const approvalStep = prepared?.steps?.find((s) => s.name === step && s.approval);
    if (!prepared?.namespace || !approvalStep || !this.options.approvals) {
      throw new ApprovalNotWaiting(`Execution ${name} has no approval step named ${JSON.stringify(step)}.`);
    }
    await this.options.approvals.decide({ namespace: prepared.namespace, buildId: prepared.build?.id ?? entry.input.build.id, execution: name, step, action, ...(comment !== undefined ? { comment } : {}), ...(by !== undefined ? { by } : {}) });
    return this.listed(entry);
  }

  /**
   * A step's place on the execution's console page (`?step=N`): its Map iteration, RunSteps' steps
   * first and then those that run after a failure (lib/console/execution-model.ts); undefined
   * before PrepareBuild listed the steps, or for a step it did not list.
   */
  stepIndex(name: string, step: string): number | undefined {
    const entry = this.entries.get(name);
    const prepared = entry ? preparedOf(entry) : undefined;
    const index = [...(prepared?.steps ?? []), ...(prepared?.afterFailure ?? [])].findIndex((s) => s.name === step);
    return index < 0 ? undefined : index;
  }

  /** The running execution's approval step, by its iteration (a check run's button) or its name, and who pushed. */
  approvalStepAt(name: string, which: { index: number } | { step: string }): { step: Step; pushedBy?: string } | undefined {
    const entry = this.entries.get(name);
    const steps = entry && !entry.summary ? preparedOf(entry)?.steps : undefined;
    const step = 'index' in which ? steps?.[which.index] : steps?.find((s) => s.name === which.step);
    const pushedBy = entry?.input.build.pushedBy;
    return step?.approval ? { step, ...(pushedBy !== undefined ? { pushedBy } : {}) } : undefined;
  }

  /** The run --json object of one execution, with its name, ARN, trigger and times. */
  get(name: string): ListedExecution | undefined {
    const entry = this.entries.get(name);
    return entry && this.listed(entry);
  }

  /** Newest first. */
  list(): ListedExecution[] {
    return [...this.entries.values()].reverse().map((entry) => this.listed(entry));
  }

  /**
   * Aborts a running execution, as Step Functions' StopExecution: its pods and claim are deleted
   * (the executor's abort runs the cleanup), and the answer is the ended execution.
   */
  async stop(name: string, reason?: AbortReason): Promise<ListedExecution> {
    const entry = this.entries.get(name);
    if (!entry) throw new ExecutionDoesNotExist(`No execution named ${name} on this server.`);
    if (entry.summary) throw new ExecutionNotRunning(`Execution ${name} has already ended: ${entry.summary.status}.`);
    entry.execution?.abort(reason);
    await entry.done;
    return this.listed(entry);
  }

  /**
   * StopExecution as a task calls it (superseding.ts): the abort is asked for and the answer does
   * not wait for the end, since the execution may be the caller's own, whose end waits for the
   * very task that asks. An execution that has ended, or is not here, is left as it is.
   */
  stopper(): ExecutionStopper {
    return {
      stop: async (executionArn, error, cause) => {
        const entry = this.entries.get(executionArn.split(':').at(-1) ?? '');
        if (entry && !entry.summary) entry.execution?.abort({ error, cause });
      },
    };
  }

  /**
   * A new execution with the same input, as the console's "New execution" starts one; only the
   * build id differs, since it names the pods and the workspace claim, and a re-run under the old
   * one would adopt what the first run left instead of starting afresh.
   */
  async rerun(name: string): Promise<StartedExecution> {
    const original = this.entries.get(name);
    if (!original) throw new ExecutionDoesNotExist(`No execution named ${name} on this server.`);
    const rerun = rerunName(name, (candidate) => this.entries.has(candidate));
    const input: BuildInput = { ...original.input, build: { ...original.input.build, id: buildIdFor(rerun) } };
    original.reruns.push(rerun);
    return this.begin(rerun, input, name);
  }

  /** Everything the console page draws for one execution. */
  detail(name: string): ExecutionDetail | undefined {
    const entry = this.entries.get(name);
    return entry && { execution: this.listed(entry), history: entry.history, pods: entry.pods };
  }

  /** Keeps how a step's pod was last seen; the pod itself is deleted when the step ends. */
  recordPod(name: string, index: number, pod: StepPodView): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    entry.pods.set(index, pod);
    this.notify({ kind: 'pod', name, index });
  }

  /** Called on every change of every execution; returns the unsubscribe function. */
  subscribe(listener: (change: ExecutionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(change: ExecutionChange): void {
    // A failing subscriber (a closed page) must not stop the build's own bookkeeping.
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        /* the subscriber's own problem */
      }
    }
  }

  private listed(entry: Entry): ListedExecution {
    // The history's own instants, as the console lines use; the registry's only until it has them.
    const instants = executionInstants(entry.history);
    return {
      ...executionIdentity(entry.name, entry.input, instants.startedAt ?? entry.startedAt, entry.summary && (instants.stoppedAt ?? entry.stoppedAt)),
      rerunOf: entry.rerunOf ?? null,
      reruns: [...entry.reruns],
      redriveCount: entry.redriveCount,
      redrivable: entry.summary !== undefined && entry.redrivable === true,
      ...this.view(entry),
    };
  }

  /** Aborts what is still running (its pods are deleted) and waits for every execution to end. */
  async stopAll(): Promise<void> {
    for (const entry of this.entries.values()) if (!entry.summary) entry.execution?.abort();
    await Promise.all([...this.entries.values()].map((entry) => entry.done));
  }

  /**
   * The approval steps a running execution waits on (asked for, AwaitApproval entered, not decided),
   * the one waiting longest first, as the deployed ReportStatus reads them from the history: a
   * check run's buttons (lib/local/server/github-app-reporting.ts).
   */
  waitingApprovals(executionArn: string): WaitingStepReport[] {
    const entry = this.entries.get(executionArn.split(':').at(-1) ?? '');
    if (!entry || entry.summary) return [];
    const steps = preparedOf(entry)?.steps ?? [];
    const asked = summarize(entry.history, false, { running: true }).steps.filter((step) => step.status === 'waiting' && step.startedAt !== null);
    return asked
      .sort((a, b) => Date.parse(a.startedAt!) - Date.parse(b.startedAt!))
      .flatMap((waiting) => {
        const index = steps.findIndex((step) => step.name === waiting.name);
        const step = steps[index];
        return step?.approval ? [{ index, step: { name: step.name, approval: step.approval } }] : [];
      });
  }

  /** What an execution has cost so far (execution-cost.ts), by its ARN: the check run's line at the build's end. */
  costOf(executionArn: string): CostSummary | undefined {
    const entry = this.entries.get(executionArn.split(':').at(-1) ?? '');
    return entry ? summarize(entry.history, false, { running: true }).cost : undefined;
  }

  private view(entry: Entry): ExecutionView {
    if (entry.summary) return entry.summary;
    return { ...summarize(entry.history, false, { running: true }), status: 'RUNNING', error: null, cause: null };
  }

  private finish(entry: Entry, summary: ExecutionSummary): void {
    entry.summary = summary;
    entry.redrivable = summary.status === 'FAILED' && isRedrivable(entry.history);
    entry.stoppedAt = this.options.now?.() ?? new Date();
    this.options.onEnd?.(entry.name, summary);
    this.notify({ kind: 'ended', name: entry.name });
  }
}
