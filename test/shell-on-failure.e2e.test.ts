/**
 * `step-runner run --shell-on-failure` as a person uses it: the real CLI on a pseudo-terminal
 * (util-linux's `script`), against an embedded cluster of this test (`--kubeconfig`), so that
 * what the build leaves on the cluster can be looked at once the command has exited. A step that
 * writes a file and fails; the shell opens in the copy of its pod, shows the file and the step's
 * secret masked, and `exit` ends the build with nothing left: no pod, no claim, no Secret, no
 * process of the shell's container.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api } from '@kubernetes/client-node';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { HOLD_COMMAND } from '../lib/cli/shell-pod.js';
import { waitFor } from './fixtures/wait-for.js';

const BIN = fileURLToPath(new URL('../bin/step-runner.js', import.meta.url));
const NAMESPACE = 'default';
const MANAGED = 'app.kubernetes.io/managed-by=serverless-step-runner';
const SECRET_VALUE = 'hunter2-but-longer';

let cluster: EmbeddedCluster;
let api: CoreV1Api;
let scratch: string;
let kubeconfig: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'shell-on-failure-'));
  cluster = await startEmbeddedCluster({ workspace: scratch, timings: FAST_TIMINGS });
  kubeconfig = path.join(scratch, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  api = kubeConfigFromFile(kubeconfig).makeApiClient(CoreV1Api);
  await writeFile(
    path.join(scratch, 'fails.yml'),
    [
      'version: 1',
      'checkout: false',
      'steps:',
      '  - name: test',
      '    image: alpine:3.20',
      '    secrets: [{env: TOKEN, secret: deploy, key: token}]',
      '    commands: ["echo kept-by-the-step > left.txt", "exit 3"]',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await cluster.stop();
  await rm(scratch, { recursive: true, force: true });
});

/** The terminal's output as text, and a wait for it to match, resolved by the output's own events. */
function screenOf(child: ChildProcess) {
  let text = '';
  const waiting = new Set<() => void>();
  child.stdout!.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    for (const check of [...waiting]) check();
  });
  return {
    get text() {
      return text;
    },
    /** Resolves with the match once the output (from `from` on) matches; fails with the screen past `timeoutMs`. */
    until(pattern: RegExp, from = 0, timeoutMs = 60_000): Promise<RegExpMatchArray> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`timed out waiting for ${pattern} on the screen:\n${text}`));
        }, timeoutMs);
        const check = () => {
          const match = text.slice(from).match(pattern);
          if (!match) return;
          waiting.delete(check);
          clearTimeout(timer);
          resolve(match);
        };
        waiting.add(check);
        check();
      });
    },
  };
}

/**
 * Processes of this machine running the copy's hold command, or the sleep it starts (the process
 * runtime's containers are processes).
 */
async function holdProcesses(): Promise<number[]> {
  const held = [HOLD_COMMAND.join('\0'), 'sleep\x002147483647'];
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (held.some((command) => cmdline.startsWith(command))) found.push(Number(entry));
  }
  return found;
}

describe('step-runner run --shell-on-failure, on a terminal', () => {
  it('opens a shell in the failed step’s workspace, masks its secret, and leaves nothing once it exits', async () => {
    const { NODE_OPTIONS: _ignored, ...env } = process.env;
    const command = [process.execPath, BIN, 'run', 'fails.yml', '--kubeconfig', kubeconfig, '--shell-on-failure', '--secret', `deploy/token=${SECRET_VALUE}`, '--state-dir', path.join(scratch, 'state')];
    // script: a pseudo-terminal for the CLI (-q no banner, -f no buffering, -e its exit code, -c the command).
    const child = spawn('script', ['-qfec', command.map((word) => `'${word}'`).join(' '), '/dev/null'], { cwd: scratch, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const screen = screenOf(child);
    try {
      const [banner] = await screen.until(/a shell in (\S+-shell), a copy of its pod/);
      const shellPod = /a shell in (\S+-shell)/.exec(banner)![1]!;
      // The shell's prompt (bash's or sh's, for root or not), after the banner.
      await screen.until(/[#$] $/, screen.text.indexOf(banner));
      const pods = await api.listNamespacedPod({ namespace: NAMESPACE, labelSelector: MANAGED });
      expect(pods.items.map((pod) => pod.metadata!.name).sort()).toEqual([shellPod.replace(/-shell$/, ''), shellPod].sort());
      // The copy's container: its hold command and the sleep it starts.
      await waitFor(async () => (await holdProcesses()).length === 2, { timeoutMs: 10_000, what: "the copy's hold command and its sleep" });

      const before = screen.text.length;
      child.stdin!.write('cat left.txt; echo "token=$TOKEN"\r');
      // The output's line, not the echo of the command typed.
      await screen.until(/\ntoken=.*\r+\n/, before);
      // Lines start after the echoed command (a CR where bash ends its bracketed paste, else a LF) and
      // end twice, by the shell's terminal and the CLI's: CR CR LF.
      expect(screen.text.slice(before)).toMatch(/[\r\n]kept-by-the-step\r+\ntoken=\*\*\*\r+\n/);

      child.stdin!.write('exit\r');
      expect(await exited).toBe(1);
      expect(screen.text).toMatch(/Shell closed; deleting its pod\./);
      expect(screen.text).toMatch(/Execution FAILED/);
      expect(screen.text).not.toContain(SECRET_VALUE);

      const left = {
        pods: (await api.listNamespacedPod({ namespace: NAMESPACE, labelSelector: MANAGED })).items.map((pod) => pod.metadata!.name),
        claims: (await api.listNamespacedPersistentVolumeClaim({ namespace: NAMESPACE, labelSelector: MANAGED })).items.map((claim) => claim.metadata!.name),
        secrets: (await api.listNamespacedSecret({ namespace: NAMESPACE, labelSelector: MANAGED })).items.map((secret) => secret.metadata!.name),
        processes: await holdProcesses(),
      };
      expect(left).toEqual({ pods: [], claims: [], secrets: [], processes: [] });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    }
    // The CLI starts (tsx), then one build through the definition's own waits.
  }, 90_000);
});
