/**
 * The Task invocations of one local execution that are under way, and their end with it. Step
 * Functions never cancels a Lambda invocation: one whose iteration a failing Map stopped, or whose
 * execution was aborted, runs on until it answers, and its answer is dropped. In this process such
 * an invocation holding a watch (WaitForNeeds, PollStep: up to 4 min) kept `run` from exiting long
 * after its build had ended. So the execution's end aborts every watch and log follow its
 * invocations hold (each then answers with what it saw, as at its time limit), and the execution's
 * result waits for them to answer.
 */
import type { TaskRuntime } from '../../workflow/task-deps.js';

export class InFlightInvocations {
  private readonly running = new Set<Promise<unknown>>();
  private readonly ended = new AbortController();

  /** How many invocations have not answered yet. */
  get count(): number {
    return this.running.size;
  }

  /** The runtime whose watches and log follows end with the execution. */
  runtime({ settings, deps }: TaskRuntime): TaskRuntime {
    const signal = this.ended.signal;
    const { watchPod, watchPods, followLog } = deps;
    return {
      settings,
      deps: {
        ...deps,
        ...(watchPod ? { watchPod: (namespace, podName, until, timeoutMs, own, fromResourceVersion) => watchPod(namespace, podName, until, timeoutMs, both(signal, own), fromResourceVersion) } : {}),
        ...(watchPods ? { watchPods: (namespace, selector, until, timeoutMs, own) => watchPods(namespace, selector, until, timeoutMs, both(signal, own)) } : {}),
        ...(followLog ? { followLog: (namespace, podName, container, from, onLines, own, options) => followLog(namespace, podName, container, from, onLines, both(signal, own), options) } : {}),
      },
    };
  }

  /** One invocation, counted until it answers or throws. */
  track<T>(invocation: Promise<T>): Promise<T> {
    const settled = invocation.then(
      () => undefined,
      () => undefined,
    );
    this.running.add(settled);
    void settled.then(() => this.running.delete(settled));
    return invocation;
  }

  /** The execution has ended: its invocations' watches end, and this resolves once every one has answered. */
  async end(): Promise<void> {
    this.ended.abort();
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}

function both(signal: AbortSignal, own: AbortSignal | undefined): AbortSignal {
  return own ? AbortSignal.any([signal, own]) : signal;
}
