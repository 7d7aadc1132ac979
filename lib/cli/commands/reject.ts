/** `step-runner reject EXECUTION STEP [--comment TEXT]` (decide.ts). */
import type { CommandIO } from './cluster.js';
import { decide } from './decide.js';

export const summary = 'reject a waiting approval step of a build on the local server: it fails ApprovalRejected';

export const run = (argv: string[], io: CommandIO): Promise<number> => decide('reject', argv, io);
