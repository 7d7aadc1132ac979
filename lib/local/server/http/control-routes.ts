/**
 * Stop and re-run, as the Step Functions console's "Stop execution" and "New execution":
 *   POST /executions/NAME/stop   abort a running build (its pods and claim are deleted); 200 with
 *                                the ended execution, 409 ExecutionNotRunning once it has ended
 *   POST /executions/NAME/rerun  a new execution with the same input; 201 {executionName, ...}
 *   POST /executions/NAME/redrive  "Re-run failed steps": the failed execution goes on, as
 *                                Step Functions' RedriveExecution; 200 with the execution, running
 *                                again, 409 ExecutionNotRedrivable when RedriveExecution would
 *                                refuse it or it has nothing to re-run, 501 RedriveNotEmulated
 *   POST /executions/NAME/approve  body {"step": NAME, "comment": TEXT} (comment optional): the
 *   POST /executions/NAME/reject   waiting approval step goes on, or the build fails
 *                                ApprovalRejected; 200 with the execution, 409 ApprovalNotWaiting
 *                                when the step is not an approval step waiting for a decision,
 *                                400 InvalidRequest for a body that says no step
 * All behind the ControlGuard (lib/local/server/http/control-guard.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StartedExecution } from '../../../forge/execution-starter.js';
import { ExecutionControlError } from '../../../emulators/stepfunctions/execution-errors.js';
import type { ListedExecution } from '../../../console/execution-view.js';
import type { ControlGuard } from './control-guard.js';
import type { ApprovalAction } from '../approvals.js';

export interface ControlSource {
  stop(name: string): Promise<ListedExecution>;
  rerun(name: string): Promise<StartedExecution>;
  redrive(name: string): Promise<ListedExecution>;
  decide(name: string, step: string, action: ApprovalAction, comment?: string): Promise<ListedExecution>;
}

type ControlAction = 'stop' | 'rerun' | 'redrive' | ApprovalAction;

/** An approve or reject body: a step's name and a comment; far less than this. */
const MAX_DECISION_BYTES = 64 * 1024;

/** Handles the request and returns true, or returns false when it is not a stop or re-run. */
export type ControlRoutes = (request: IncomingMessage, response: ServerResponse, path: string) => Promise<boolean>;

export function createControlRoutes(options: { executions: ControlSource; guard: ControlGuard }): ControlRoutes {
  return async (request, response, path) => {
    const match = /^\/executions\/([^/]+)\/(stop|rerun|redrive|approve|reject)$/.exec(path);
    if (!match) return false;
    let name: string;
    try {
      name = decodeURIComponent(match[1]!);
    } catch {
      return false;
    }
    const action = match[2] as ControlAction;
    if (request.method !== 'POST') {
      send(response, 405, { error: 'MethodNotAllowed', message: `${request.method} ${path}: use POST.` }, { allow: 'POST' });
      return true;
    }
    const refused = options.guard(request);
    if (refused) {
      send(response, refused.status, { error: refused.error, message: refused.message });
      return true;
    }
    try {
      if (action === 'approve' || action === 'reject') {
        const decision = decisionOf(await readBody(request));
        if (typeof decision === 'string') {
          send(response, 400, { error: 'InvalidRequest', message: decision });
          return true;
        }
        send(response, 200, await options.executions.decide(name, decision.step, action, decision.comment));
        return true;
      }
      // The body carries nothing; it is drained so the connection can be reused.
      request.resume();
      if (action === 'stop') send(response, 200, await options.executions.stop(name));
      else if (action === 'redrive') send(response, 200, await options.executions.redrive(name));
      else send(response, 201, { ...(await options.executions.rerun(name)), rerunOf: name });
    } catch (error) {
      if (!(error instanceof ExecutionControlError)) throw error;
      send(response, error.statusCode, { error: error.name, message: error.message });
    }
    return true;
  };
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
}

/** The body as text, up to MAX_DECISION_BYTES (the rest read and dropped). */
async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    if (size <= MAX_DECISION_BYTES) chunks.push(chunk);
    size += chunk.length;
  }
  return size > MAX_DECISION_BYTES ? '' : Buffer.concat(chunks).toString('utf8');
}

/** `{"step": NAME, "comment": TEXT}`, or why not. */
function decisionOf(body: string): { step: string; comment?: string } | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `Send a JSON body {"step": NAME, "comment": TEXT} (comment optional), at most ${MAX_DECISION_BYTES / 1024} KiB.`;
  }
  const { step, comment } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { step?: unknown; comment?: unknown };
  if (typeof step !== 'string' || step === '') return 'The body names no step: send {"step": NAME, "comment": TEXT}.';
  if (comment !== undefined && typeof comment !== 'string') return 'The comment must be text.';
  return { step, ...(comment !== undefined && comment !== '' ? { comment } : {}) };
}
