/**
 * `step-runner approve|reject EXECUTION STEP [--comment TEXT]`: decides a waiting approval step of
 * a build on the local server (`serve`), through its POST /executions/NAME/approve or /reject, as
 * the console page's buttons do. The server answers the step's task token as the local user.
 */
import { parseArgs } from 'node:util';
import type { CommandIO } from './cluster.js';
import { UsageError } from './usage.js';

export type Decision = 'approve' | 'reject';

/** Where `serve` listens unless told otherwise (its --port default). */
export const DEFAULT_SERVER = 'http://127.0.0.1:3000';

export const decideUsage = (decision: Decision) => `${decision} EXECUTION STEP [--comment TEXT] [--server URL]`;

const APPROVES = `Approves STEP, an approval step (\`approval:\`) of the running build EXECUTION on
the local server (\`step-runner serve\`), as the local user: the build goes on.`;
const REJECTS = `Rejects STEP, an approval step (\`approval:\`) of the running build EXECUTION on
the local server (\`step-runner serve\`), as the local user: the build fails ApprovalRejected,
the Cause naming you and your comment.`;

export const decideHelp = (decision: Decision) => `Usage: step-runner ${decideUsage(decision)}

${decision === 'approve' ? APPROVES : REJECTS}
The step's result records who decided, when, and the comment (run --json's steps[].approval).
Exit 0 once decided; 1 when the server refuses (no such execution, it has ended, or STEP is not
waiting for an approval), with its words.
  EXECUTION         the execution's name, as GET /executions lists it
  STEP              the approval step's name
  --comment TEXT    why, kept with the decision${decision === 'reject' ? ' and in the Cause' : ''}
  --server URL      the local server (default: $STEP_RUNNER_SERVER, else ${DEFAULT_SERVER}); one
                    listening beyond loopback wants its webhook secret, sent from
                    $GITHUB_WEBHOOK_SECRET
  -h, --help        this help`;

export async function decide(decision: Decision, argv: string[], io: CommandIO, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let execution: string, step: string, comment: string | undefined, server: string;
  try {
    const parsed = parseArgs({ args: argv, allowPositionals: true, options: { comment: { type: 'string' }, server: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
    if (parsed.values.help) {
      io.out(decideHelp(decision));
      return 0;
    }
    if (parsed.positionals.length !== 2) throw new UsageError(`needs EXECUTION and STEP, got ${parsed.positionals.length} argument${parsed.positionals.length === 1 ? '' : 's'}`);
    [execution, step] = parsed.positionals as [string, string];
    comment = parsed.values.comment;
    server = serverOption(parsed.values.server ?? env['STEP_RUNNER_SERVER'] ?? DEFAULT_SERVER);
  } catch (error) {
    io.err(`step-runner ${decision}: ${(error as Error).message}`);
    io.err(`Usage: step-runner ${decideUsage(decision)}`);
    return 2;
  }
  const secret = env['GITHUB_WEBHOOK_SECRET'];
  let response: Response;
  try {
    response = await fetch(`${server}/executions/${encodeURIComponent(execution)}/${decision}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(secret ? { authorization: `Bearer ${secret}` } : {}) },
      body: JSON.stringify({ step, ...(comment !== undefined ? { comment } : {}) }),
    });
  } catch (error) {
    io.err(`step-runner ${decision}: no local server answered at ${server} (${(error as Error).message}); start one with step-runner serve, or say where with --server`);
    return 1;
  }
  const answer = (await response.json().catch(() => ({}))) as { error?: string; message?: string; status?: string };
  if (!response.ok) {
    io.err(`${answer.error ?? `HTTP ${response.status}`}: ${answer.message ?? 'the server refused'}`);
    return 1;
  }
  io.out(`${decision === 'approve' ? 'Approved' : 'Rejected'} step "${step}" of ${execution}${comment ? `: ${comment}` : ''}`);
  return 0;
}

function serverOption(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--server must be a URL such as ${DEFAULT_SERVER}, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--server must be an http(s) URL, got "${value}"`);
  return url.origin;
}
