/**
 * What names an execution besides its outcome: the fields `GET /executions[/NAME]` and `run --json`
 * share (docs/contracts.md), so a script can link one to the other and to the console page.
 */
import type { BuildInput } from '../../contract/index.js';
import { localExecutionArn } from './executor.js';

export interface ExecutionIdentity {
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

export function executionIdentity(name: string, input: BuildInput, startedAt: Date, stoppedAt: Date | undefined): ExecutionIdentity {
  return {
    name,
    executionArn: localExecutionArn(name),
    startedAt: startedAt.toISOString(),
    stoppedAt: stoppedAt?.toISOString() ?? null,
    buildId: input.build.id,
    trigger: input.build.trigger ?? null,
    repository: input.build.repository ?? null,
    commit: input.build.commit ?? null,
    ref: input.build.ref ?? null,
  };
}
