import { open } from 'node:fs/promises';
import type { PollState } from '../workflow/state-data.js';
import type { ExecutionEvent } from '../emulators/stepfunctions/execution-history.js';
// The states alone, not the executor: this file's test loads nothing of aws-local-stepfunctions.
import { isFinishState, isLaunchState } from '../emulators/stepfunctions/states.js';

/** How often a running step's log file is looked at for new lines. */
const READ_EVERY_MS = 200;

/**
 * Prints each step's log lines as the log store receives them (PollStep keeps a running step's
 * log in the local file as it grows), prefixed as the console lines print a log tail. A step's
 * file is read from its LaunchStep on, and one last time when FinishStep has completed it.
 */
export class LiveLogPrinter {
  private readonly followed = new Map<number, { file: string; offset: number; rest: Buffer; reading: Promise<void>; prefix: string }>();
  /** With steps side by side, their lines interleave: each names its step. */
  private names: string[] | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly print: (line: string) => void) {
    this.timer = setInterval(() => {
      for (const index of this.followed.keys()) void this.read(index);
    }, READ_EVERY_MS);
  }

  /** Call before the console lines of the same event, so a step's last lines come before its result. */
  async onEvent(event: ExecutionEvent): Promise<void> {
    const index = event.index;
    if (event.type === 'StateExited' && event.state?.name === 'PrepareBuild') {
      const prepared = event.state.output as { steps?: { name: string }[]; maxParallel?: number } | undefined;
      if ((prepared?.maxParallel ?? 1) > 1) this.names = prepared?.steps?.map((s) => s.name);
    }
    if (index === undefined) return;
    if (event.type === 'StateExited' && isLaunchState(event.state?.name)) {
      const file = (event.state.output as { poll?: PollState } | undefined)?.poll?.log?.location;
      const prefix = this.names?.[index] !== undefined ? `${this.names[index]} ` : '';
      if (file && !this.followed.has(index)) this.followed.set(index, { file, offset: 0, rest: Buffer.alloc(0), reading: Promise.resolve(), prefix });
    }
    if (event.type === 'TaskSucceeded' && isFinishState(event.state?.name)) {
      await this.read(index, true);
      this.followed.delete(index);
    }
  }

  /** No more reads; resolves once those under way have printed what they read (`run` returns after, never before). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    const reading = [...this.followed.values()].map((step) => step.reading);
    this.followed.clear();
    await Promise.all(reading);
  }

  private read(index: number, last = false): Promise<void> {
    const step = this.followed.get(index);
    if (!step) return Promise.resolve();
    step.reading = step.reading.then(async () => {
      const handle = await open(step.file, 'r').catch(() => undefined);
      if (!handle) return;
      try {
        const { size } = await handle.stat();
        if (size > step.offset) {
          const bytes = Buffer.alloc(size - step.offset);
          await handle.read(bytes, 0, bytes.length, step.offset);
          step.offset = size;
          step.rest = Buffer.concat([step.rest, bytes]);
        }
      } finally {
        await handle.close();
      }
      // Whole lines only, cut at a newline byte, so a character is never split between two reads.
      const cut = last ? step.rest.length : step.rest.lastIndexOf(0x0a) + 1;
      const lines = step.rest.subarray(0, cut).toString('utf8').replace(/\n$/, '');
      step.rest = step.rest.subarray(cut);
      if (lines) for (const line of lines.split('\n')) this.print(`        ${step.prefix}│ ${line}`);
    }).catch(() => {
      // A file that cannot be read now is read again at the next tick, from the same offset.
    });
    return step.reading;
  }
}
