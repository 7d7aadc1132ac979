import { plainCause } from '../contract/lambda-error.js';
import { imageCheckNote } from '../workflow/image-check.js';
import type { CleanupResult, NeedsState, PollState, PreparedBuild, StepResult } from '../workflow/state-data.js';
import { isFinishState, type ExecutionEvent } from '../emulators/stepfunctions/executor.js';
import { AWAIT_APPROVAL, AWAIT_RERUN } from '../emulators/stepfunctions/states.js';
import type { ApprovedResult } from '../workflow/approval-decision.js';
import { pollOutcome } from '../console/poll-words.js';
import type { TestSummary } from '../contract/test-summary.js';
import { failedTestLines } from './failed-tests.js';

/**
 * Turns the execution history into the lines a person would read in the Step Functions console:
 * each state entered and left, one block per Map iteration (one per step), repeated polls with the
 * same outcome folded into one line, each step's result and log tail, and the execution's end with
 * its Error and Cause. Pure: events in, lines out, so it is tested on recorded histories.
 */
export class ConsoleOutput {
  private startedAt = 0;
  private steps: string[] = [];
  /** How many of `steps` are RunSteps' (the rest run after a failure). */
  private running = 0;
  /** Steps that run side by side: their lines interleave, so each names its step. */
  private parallel = 0;
  private kept = new Set<number>();
  /** What each step needs (PreparedBuild's steps): such a step is waiting, not started, until its pod is launched. */
  private needs: string[][] = [];
  /** Steps announced as waiting whose start (their pod launched) is still to be said. */
  private waiting = new Set<number>();
  private lastPoll = new Map<number, { key: string; count: number }>();
  private lastWait = new Map<number, string>();
  /** Steps whose iteration has printed its outcome line (`✓ [i/n] NAME succeeded`, or its failure). */
  private reported = new Set<string>();
  /**
   * WaitForNeeds sees a needed step done (or its pod failed) before that step's own iteration reports it:
   * the waiting step's lines, from "needs met" (or "will not start") on, are held until every step
   * it names has said so.
   */
  private held = new Map<number, { until: Set<string>; lines: string[]; succeeded: boolean }>();
  /** Each step's test reports, as its last FinishStep read them: printed at the build's end. */
  private tests = new Map<string, TestSummary>();

  /**
   * `liveLog`: the steps' lines are printed as they come (LiveLogPrinter), so no tail at their end.
   * `rerun: false`: a command that cannot re-run a failed build's steps (`run`, whose execution
   * ends with it), so no line offers "Re-run failed steps".
   */
  constructor(
    private readonly title: string,
    private readonly options: { liveLog?: boolean; rerun?: false } = {},
  ) {}

  lines(event: ExecutionEvent): string[] {
    // An invocation's billing record (lambda-invocations.ts) says nothing a person reads here, and releases nothing held.
    if (event.lambda) return [];
    const index = event.index;
    // An event of no step (the Map's or the execution's end) releases whatever is still held.
    if (index === undefined) return [...this.release(() => true), ...this.eventLines(event)];
    const held = this.held.get(index);
    if (held) {
      held.lines.push(...this.eventLines(event));
      held.succeeded ||= event.type === 'MapIterationSucceeded';
      return [];
    }
    const lines = this.eventLines(event);
    if (event.type !== 'MapIterationSucceeded' && event.type !== 'MapIterationFailed') return lines;
    this.reported.add(this.steps[index] ?? '');
    return [...lines, ...this.release((until) => [...until].every((name) => this.reported.has(name)))];
  }

  /** The held lines that may now be printed; a step released with its outcome may release others. */
  private release(ready: (until: Set<string>) => boolean): string[] {
    const released: string[] = [];
    let more = true;
    while (more) {
      more = false;
      for (const [index, held] of this.held) {
        if (!ready(held.until)) continue;
        this.held.delete(index);
        released.push(...held.lines);
        if (held.succeeded) this.reported.add(this.steps[index] ?? '');
        more = true;
      }
    }
    return released;
  }

  private eventLines(event: ExecutionEvent): string[] {
    const at = event.timestamp;
    const state = event.state?.name ?? '';
    const indent = event.index === undefined ? '  ' : this.parallel > 1 ? `      ${this.steps[event.index] ?? ''} ` : '      ';
    switch (event.type) {
      case 'ExecutionStarted':
        this.startedAt = at;
        return [`Execution ${this.title} started`];
      case 'ExecutionRedriven':
        this.startedAt = at;
        return [`Execution ${this.title} redriven: its steps that did not succeed run again, in its workspace`];
      case 'StateEntered':
        if (state === AWAIT_APPROVAL) return [`${indent}⏸ ${state}: waiting for a person: step-runner approve (or reject) EXECUTION ${this.steps[event.index ?? 0] ?? 'STEP'} [--comment TEXT]`];
        if (state === 'RunAfterFailure') return [`  ▶ RunAfterFailure: ${this.steps.length - this.running} step(s) that run after a failure, one at a time`];
        return state === 'RunSteps' ? [`  ▶ RunSteps: ${this.running} step(s), ${this.parallel > 1 ? `up to ${this.parallel} at once, each after the steps it needs` : 'one at a time'}`] : [];
      case 'StateExited':
        return this.exited(event, indent);
      case 'TaskSucceeded':
        if (state === AWAIT_APPROVAL) return approvedLine(event.state?.output, indent);
        return isFinishState(state) ? this.finished(event, indent) : [];
      case 'StateRetried':
        return [`${indent}↻ ${state} retried`];
      case 'StateFailed':
        // AwaitRerun fails with the build's own failure, which the execution's end then says in full.
        if (state === AWAIT_RERUN) return [`${indent}✗ ${state}: ${event.Error ?? 'failed'}, the build's failure${this.options.rerun === false ? '' : '; "Re-run failed steps" goes on from here'}`];
        return event.state?.type === 'Fail' ? [] : [`${indent}✗ ${state}: ${event.Error ?? 'failed'}`];
      case 'StateCaught':
        return [`${indent}↪ ${state} caught ${event.Error ?? 'the error'}`];
      case 'MapIterationStarted':
        return this.iterationStarted(event.index ?? 0);
      case 'MapIterationSucceeded':
        return [`    ✓ ${this.iteration(event.index ?? 0)} succeeded`];
      case 'MapIterationFailed':
        return [`    ✗ ${this.iteration(event.index ?? 0)}: ${event.Error}`];
      case 'ExecutionSucceeded':
        return [`Execution SUCCEEDED in ${seconds(at - this.startedAt)}`, ...failedTestLines(this.tests)];
      case 'ExecutionFailed':
        return [
          `Execution FAILED in ${seconds(at - this.startedAt)}`,
          ...failedTestLines(this.tests),
          `  Error: ${event.Error}`,
          // A build that fails in AwaitRerun (a Lambda task) ends with its Cause inside Lambda's error JSON.
          ...plainCause(String(event.Cause ?? ''))
            .split('\n')
            .map((line, i) => (i === 0 ? `  Cause: ${line}` : `         ${line}`)),
        ];
      case 'ExecutionTimeout':
        return [`Execution TIMED_OUT after ${seconds(at - this.startedAt)}`];
      case 'ExecutionAborted':
        return [`Execution ABORTED after ${seconds(at - this.startedAt)}`];
      default:
        return [];
    }
  }

  /**
   * A step's iteration starts as soon as the Map has room for it, but a step that needs others only
   * waits there (WaitForNeeds): it is said to wait, and is said to start when its pod is launched.
   */
  private iterationStarted(index: number): string[] {
    const needs = this.needs[index] ?? [];
    if (needs.length === 0) return [`    ▶ ${this.iteration(index)}`];
    const waiting = needs.map((name) => `"${name}"`).join(', ');
    this.waiting.add(index);
    // WaitForNeeds' first "waiting for" says the same: said once.
    this.lastWait.set(index, waiting);
    return [`    · ${this.iteration(index)}: waiting for ${waiting}`];
  }

  /** `[i/n] NAME`, counted within its Map, as the Map's `▶` line counts its steps. */
  private iteration(index: number): string {
    const [place, of] = index < this.running ? [index, this.running] : [index - this.running, this.steps.length - this.running];
    return `[${place + 1}/${of}] ${this.steps[index] ?? ''}`;
  }

  private exited(event: ExecutionEvent, indent: string): string[] {
    const state = event.state?.name ?? '';
    const output = event.state?.output as Record<string, unknown> | undefined;
    switch (state) {
      case 'PrepareBuild': {
        const prepared = output as unknown as Partial<PreparedBuild>;
        // A rejected pipeline leaves PrepareBuild through its Catch, with the failure and no steps:
        // its StateFailed line already said why.
        if (!prepared.steps) return [];
        // RunAfterFailure's iterations come after RunSteps' in the local history (listedSteps).
        this.steps = [...prepared.steps, ...(prepared.afterFailure ?? [])].map((s) => s.name);
        this.running = prepared.steps.length;
        this.parallel = prepared.maxParallel ?? 1;
        this.kept = new Set(prepared.steps.flatMap((s, i) => (s.needed ? [i] : [])));
        this.needs = prepared.steps.map((s) => s.needs ?? []);
        return [
          `  ✓ PrepareBuild: namespace ${prepared.namespace}`,
          ...prepared.steps.map((s) => `      Preparing step "${s.name}": ${preparedWhat(s, prepared.images)}`),
          ...(prepared.afterFailure ?? []).map((s) => `      Preparing step "${s.name}", only if the build fails: ${preparedWhat(s, prepared.images)}`),
          ...(prepared.skipped ?? []).map((s) => `  ⤼ step "${s.name}" skipped: ${s.reason}`),
        ];
      }
      case 'LaunchStep':
      case 'LaunchAfterFailure': {
        const index = event.index ?? 0;
        const started = this.waiting.delete(index) ? [`    ▶ ${this.iteration(index)}`] : [];
        return [...started, `${indent}✓ ${state}: pod ${(output?.poll as PollState | undefined)?.podName}`];
      }
      case 'PollStep':
      case 'PollAfterFailure':
        return this.poll(event.index ?? 0, output?.poll as PollState, indent, state);
      case 'WaitForNeeds':
        return this.waited(event.index ?? 0, output?.needs as NeedsState, indent);
      case 'StopSteps':
        return [`  ✓ StopSteps: deleted ${(output?.stopped as { deletedPods?: number } | undefined)?.deletedPods ?? 0} pod(s) of the steps still running`];
      case 'CleanupBuild': {
        const cleanup = output?.cleanup as CleanupResult | undefined;
        const rerun = cleanup?.rerun;
        const kept = !rerun ? '' : this.options.rerun === false ? '; kept its workspace claim' : `; kept the workspace for a re-run of ${rerun.steps.map((s) => s.name).join(', ')} ("Re-run failed steps")`;
        const claims = cleanup?.deletedClaims ? `, its workspace claim` : '';
        const secrets = cleanup?.deletedSecrets ? `, ${cleanup.deletedSecrets} Secret(s)` : '';
        return [`  ✓ CleanupBuild: deleted ${cleanup?.deletedPods ?? 0} pod(s)${claims}${secrets}${kept}`];
      }
      default:
        return [];
    }
  }

  /** The step's whole result, log tail included, is what FinishStep returned (not its trimmed output). */
  private finished(event: ExecutionEvent, indent: string): string[] {
    const result = event.state?.output as StepResult;
    if (result.tests) this.tests.set(result.step, result.tests);
    const polls = this.lastPoll.get(event.index ?? 0);
    const folded = polls && polls.count > 1 ? [`${indent}  (same for ${polls.count} polls in a row)`] : [];
    const exit = result.exitCode === null ? '' : `, exit ${result.exitCode}`;
    return [
      ...folded,
      `${indent}${result.status === 'succeeded' ? '✓' : '✗'} ${event.state?.name}: ${result.status}${exit}; ${result.status === 'succeeded' && this.kept.has(event.index ?? -1) ? 'pod kept for the steps that need it' : 'pod deleted'}`,
      ...(result.logTail && !this.options.liveLog ? result.logTail.split('\n').map((line) => `${indent}  │ ${line}`) : []),
      ...(result.log ? [`${indent}  log: ${result.log}`] : []),
      ...(result.services ?? []).map(
        (s) => `${indent}  service "${s.name}": ${s.state}${s.exitCode === null ? '' : `, exit ${s.exitCode}`}${s.restarts ? `, restarted ${s.restarts}×` : ''}${s.log ? `; log: ${s.log}` : ''}`,
      ),
    ];
  }

  /** What a step waits for, when that changes, and when it may start. */
  private waited(index: number, needs: NeedsState, indent: string): string[] {
    if (needs.met) {
      const line = `${indent}✓ WaitForNeeds: ${needs.done.map((name) => `"${name}"`).join(', ')} succeeded`;
      const until = new Set(needs.done.filter((name) => !this.reported.has(name)));
      if (until.size === 0) return [line];
      this.held.set(index, { until, lines: [line], succeeded: false });
      return [];
    }
    const waiting = needs.unmet ? needs.unmet.reason : needs.waitingFor.map((name) => `"${name}"`).join(', ');
    if (this.lastWait.get(index) === waiting) return [];
    this.lastWait.set(index, waiting);
    if (!needs.unmet) return [`${indent}· WaitForNeeds: waiting for ${waiting}`];
    const line = `${indent}✗ WaitForNeeds: will not start: ${needs.unmet.reason}`;
    if (this.reported.has(needs.unmet.step)) return [line];
    this.held.set(index, { until: new Set([needs.unmet.step]), lines: [line], succeeded: false });
    return [];
  }

  /** A poll is printed when its outcome differs from the previous one; repeats are counted. */
  private poll(index: number, poll: PollState, indent: string, state: string): string[] {
    const key = `${poll.phase}/${poll.reason}`;
    const last = this.lastPoll.get(index);
    if (last?.key === key) {
      last.count++;
      return [];
    }
    const folded = last && last.count > 1 ? [`${indent}  (same for ${last.count} polls in a row)`] : [];
    this.lastPoll.set(index, { key, count: 1 });
    const detail = poll.message ? `: ${firstLine(poll.message)}` : '';
    return [...folded, `${indent}· ${state} #${poll.polls}: ${pollOutcome(poll)}${detail}`];
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

/** What a prepared step runs: its image, or the wait of an approval step. */
function preparedWhat(step: PreparedBuild['steps'][number], images: PreparedBuild['images']): string {
  return step.image === undefined ? 'waits for an approval' : `image ${step.image}${imageCheckNote(images, step.image)}`;
}

/** Who approved the step, and their comment. */
function approvedLine(output: unknown, indent: string): string[] {
  const approval = (output as Partial<ApprovedResult> | undefined)?.approval;
  return approval ? [`${indent}✓ ${AWAIT_APPROVAL}: approved by ${approval.by ?? 'someone'}${approval.comment ? `: ${approval.comment}` : ''}`] : [];
}
