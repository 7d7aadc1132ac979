/** `step-runner approve EXECUTION STEP [--comment TEXT]` (decide.ts). */
import type { CommandIO } from './cluster.js';
import { decide } from './decide.js';

export const summary = 'approve a waiting approval step of a build on the local server';

export const run = (argv: string[], io: CommandIO): Promise<number> => decide('approve', argv, io);
