/**
 * Stop and re-run, as the Step Functions console's "Stop execution" and "New execution":
 *   POST /executions/NAME/stop   abort a running build (its pods and claim are deleted); 200 with
 *                                the ended execution, 409 ExecutionNotRunning once it has ended
 *   POST /executions/NAME/rerun  a new execution with the same input; 201 {executionName, ...}
 *   POST /executions/NAME/redrive  "Re-run failed steps": the failed execution goes on, as
 *                                Step Functions' RedriveExecution; 200 with the execution, running
 *                                again, 409 ExecutionNotRedrivable when RedriveExecution would
 *                                refuse it or it has nothing to re-run, 501 RedriveNotEmulated
 * All behind the ControlGuard (lib/local/server/http/control-guard.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StartedExecution } from '../../../forge/execution-starter.js';
import { ExecutionControlError } from '../../../emulators/stepfunctions/execution-errors.js';
import type { ListedExecution } from '../../../console/execution-view.js';
import type { ControlGuard } from './control-guard.js';

export interface ControlSource {
  stop(name: string): Promise<ListedExecution>;
  rerun(name: string): Promise<StartedExecution>;
  redrive(name: string): Promise<ListedExecution>;
}

type ControlAction = 'stop' | 'rerun' | 'redrive';

/** Handles the request and returns true, or returns false when it is not a stop or re-run. */
export type ControlRoutes = (request: IncomingMessage, response: ServerResponse, path: string) => Promise<boolean>;

export function createControlRoutes(options: { executions: ControlSource; guard: ControlGuard }): ControlRoutes {
  return async (request, response, path) => {
    const match = /^\/executions\/([^/]+)\/(stop|rerun|redrive)$/.exec(path);
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
    // The body carries nothing; it is drained so the connection can be reused.
    request.resume();
    try {
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
