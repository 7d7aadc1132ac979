/**
 * `run --shell-on-failure`: when a step fails for good, a shell in a copy of its pod (shell-pod.ts)
 * on the user's terminal, before the build goes on to delete the pod, its workspace and its
 * Secrets. The local executor pauses the execution before FinishFailedStep for it (its
 * `pauseBefore`), so what the shell sees is what the step left; once the shell exits, the copy is
 * deleted and the build ends as it would have, its own cleanup deleting the rest (`run` keeps
 * nothing once it exits unless --keep): nothing is left, as after Ctrl-C.
 *
 * Why a copy made after the failure, and not a step script that waits when its commands fail: the
 * exited container cannot be entered again, and a waiting script would change the pod the
 * deployment runs (or need a second script kept in step with it), and its pod would not end, so
 * PollStep would have to be taught a failure that is still running. The copy changes nothing the
 * deployment runs. It has to be made before FinishFailedStep deletes the failed pod, and the build
 * must not reach its cleanup (which deletes the claim) while the shell is open: so the pause is
 * there, before the invocation, outside the Lambda function's timeout (lambda-binding.ts cuts an
 * invocation at it) and under no Task timeout (task-timeouts.ts: FinishFailedStep names none).
 */
import { StringDecoder } from 'node:string_decoder';
import { Exec, type CoreV1Api, type V1Pod, type V1Status } from '@kubernetes/client-node';
import { secretNeedles, STEP_CONTAINER, watchPodUntil } from '../kube/index.js';
import type { StepInput } from '../workflow/state-data.js';
import { FAILING_FINISH } from '../emulators/stepfunctions/states.js';
import type { LocalTaskRuntime } from '../local/task-runtime.js';
import { kubeConfigFromFile } from '../local/kube-config-file.js';
import { failsForGood, noShellBecause, ownWorkspace, SHELL_COMMAND, shellPodCopy } from './shell-pod.js';
import { lendTerminal, type UserTerminal } from './shell-terminal.js';
import { StreamingMask } from './streaming-mask.js';
import { stepSecretRefs } from '../workflow/aws-secrets.js';

/**
 * How long a piece of output that could begin a secret is held for the rest: a program prints a
 * secret in one burst, and longer than this is a person typing it, whose echo must not lag.
 */
const MASK_HOLD_MS = 30;
/** The copy's services start again before its container does (their startup probes): as long as they may take, and some. */
const COPY_START_MS = 5 * 60_000;

export interface FailedStepShellOptions {
  kubeconfig: string;
  context?: string;
  runtime: LocalTaskRuntime;
  print: (line: string) => void;
  terminal: UserTerminal;
  /** Settles once what was printed of the build so far is out (the failed step's last lines before the shell). */
  printed?: () => Promise<unknown>;
}

export interface FailedStepShell {
  /**
   * The executor's `pauseBefore`: the first step that fails for good gets the shell. A step
   * failing beside it while the shell is open waits for it (its failure would end the build,
   * whose cleanup would delete the pod under the shell), and gets none.
   */
  pauseBefore(state: string, input: unknown): Promise<void>;
  /**
   * `print` for the build's own lines (console lines, live logs, statuses): held while the shell
   * has the terminal, since steps beside the failed one go on, and printed once it is given back.
   */
  heldWhileOpen(print: (line: string) => void): (line: string) => void;
}

export function failedStepShell(options: FailedStepShellOptions): FailedStepShell {
  let opened: Promise<void> | undefined;
  const held: { lines: string[] | undefined; print?: (line: string) => void } = { lines: undefined };
  const terminal = {
    ...options,
    lent: () => (held.lines = []),
    givenBack: () => {
      const lines = held.lines ?? [];
      held.lines = undefined;
      lines.forEach((line) => held.print?.(line));
    },
  };
  return {
    heldWhileOpen(print) {
      held.print = print;
      return (line) => (held.lines ? held.lines.push(line) : print(line));
    },
    async pauseBefore(state, input) {
      if (state !== FAILING_FINISH || !failsForGood(input as StepInput)) return;
      if (opened) return opened;
      opened = openShell(input as StepInput, terminal).catch((error: Error) => options.print(`No shell: ${error.message}`));
      return opened;
    },
  };
}

/** The options, and what to do when the terminal is lent to the shell and given back. */
type ShellOptions = FailedStepShellOptions & { lent(): void; givenBack(): void };

async function openShell(input: StepInput, options: ShellOptions): Promise<void> {
  const { print } = options;
  const api = await options.runtime.kube();
  const { namespace } = input;
  const step = input.step.name;
  const failed = await api.readNamespacedPod({ namespace, name: input.poll!.podName }).catch(() => undefined);
  const why = noShellBecause(failed);
  if (why || !failed) {
    print(`No shell in step "${step}": ${why}.`);
    return;
  }
  await options.printed?.();
  const copy = shellPodCopy(failed);
  const name = copy.metadata!.name!;
  await api.createNamespacedPod({ namespace, body: copy });
  try {
    const services = (input.step.services ?? []).map((s) => s.name);
    print(`Step "${step}" failed: a shell in ${name}, a copy of its pod: its image, environment, workspace${services.length > 0 ? ` and services (${services.join(', ')}, started again)` : ''}.`);
    print('Secrets are masked (***) in what it shows. Leave it with `exit` or Ctrl-D: the build then ends and deletes what it left.');
    if (ownWorkspace(failed)) print('Its workspace was its pod\'s own (--workspace-mode ephemeral), gone with it: the shell\'s is a new checkout, without what the step changed.');
    const kubeConfig = kubeConfigFromFile(options.kubeconfig, options.context);
    const running = await watchPodUntil(kubeConfig, namespace, name, (pod) => pod === null || stepStarted(pod) || ended(pod), COPY_START_MS);
    const pod = running?.pod ?? (await api.readNamespacedPod({ namespace, name }).catch(() => null));
    if (!pod || !stepRunning(pod)) {
      print(`No shell in step "${step}": its copy's container is not running (${podState(pod)}).`);
      return;
    }
    const needles = await secretsOf(input, options.runtime);
    options.lent();
    let status: V1Status | undefined;
    try {
      status = await session(kubeConfig, namespace, name, needles, options.terminal);
    } finally {
      print(`Shell closed${status?.status === 'Failure' && status.reason !== 'NonZeroExitCode' ? ` (${status.message ?? status.reason})` : ''}; deleting its pod.`);
      options.givenBack();
    }
  } finally {
    await deleteCopy(api, namespace, name);
  }
}

/** The values the step's secrets hold (its checkout's and services' too), as FinishStep masks its log with. */
async function secretsOf(input: StepInput, runtime: LocalTaskRuntime): Promise<string[]> {
  const secrets = [...(input.settings.checkout?.secrets ?? []), ...stepSecretRefs(input.build.id, input.step), ...(input.step.services ?? []).flatMap((s) => s.secrets)];
  return secrets.length > 0 ? secretNeedles(await runtime.deps.cluster.readSecretValues(input.namespace, secrets)) : [];
}

/** The shell, on the lent terminal, until it exits; what it shows masked. */
async function session(kubeConfig: ReturnType<typeof kubeConfigFromFile>, namespace: string, pod: string, needles: readonly string[], terminal: UserTerminal): Promise<V1Status | undefined> {
  const mask = new StreamingMask(needles);
  const decoder = new StringDecoder('utf8');
  let timer: NodeJS.Timeout | undefined;
  const write = (text: string) => {
    if (text) terminal.output.write(text);
  };
  const show = (chunk: Buffer) => {
    clearTimeout(timer);
    write(mask.push(decoder.write(chunk)));
    if (mask.holding) timer = setTimeout(() => write(mask.flush()), MASK_HOLD_MS);
  };
  const lent = lendTerminal(terminal, show);
  try {
    return await new Promise<V1Status | undefined>((resolve, reject) => {
      let status: V1Status | undefined;
      new Exec(kubeConfig)
        .exec(namespace, pod, STEP_CONTAINER, SHELL_COMMAND, lent.screen, null, lent.keys, true, (s) => {
          status = s;
        })
        .then((ws) => ws.on('close', () => resolve(status)), reject);
    });
  } finally {
    clearTimeout(timer);
    write(mask.push(decoder.end()) + mask.flush());
    lent.giveBack();
  }
}

async function deleteCopy(api: CoreV1Api, namespace: string, name: string): Promise<void> {
  await api.deleteNamespacedPod({ namespace, name, gracePeriodSeconds: 0 }).catch(() => undefined);
}

function stepStatus(pod: V1Pod) {
  return pod.status?.containerStatuses?.find((s) => s.name === STEP_CONTAINER);
}

const stepRunning = (pod: V1Pod) => stepStatus(pod)?.state?.running !== undefined;
const stepStarted = (pod: V1Pod) => stepRunning(pod) || stepStatus(pod)?.state?.terminated !== undefined;
const ended = (pod: V1Pod) => pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';

function podState(pod: V1Pod | null): string {
  if (!pod) return 'its pod is gone';
  const waiting = stepStatus(pod)?.state?.waiting;
  if (waiting?.reason) return `${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`;
  return `pod ${pod.status?.phase ?? 'Pending'}`;
}
