import { errorExcerpt } from './error-excerpt.js';

/** The last lines of a log, bounded in lines and bytes, for state outputs and Causes. */
export function logTail(log: string, maxLines = 20, maxChars = 2000): string {
  const lines = log.replace(/\n$/, '').split('\n');
  let tail = lines.slice(-maxLines).join('\n');
  if (tail.length > maxChars) tail = `…${tail.slice(tail.length - maxChars + 1)}`;
  return tail;
}

/**
 * A Cause's view of the log: its tail, after the lines where the last error begins when those
 * have scrolled above it (error-excerpt.ts), marked so no one reads them as consecutive.
 */
export function causeLogTail(log: string, maxLines = 20, maxChars = 2000): string {
  const tail = logTail(log, maxLines, maxChars);
  const lines = log.replace(/\n$/, '').split('\n');
  const excerpt = errorExcerpt(lines, Math.max(0, lines.length - maxLines));
  if (!excerpt) return tail;
  return `… (earlier, where the last error begins:)\n${excerpt.join('\n')}\n…\n${tail}`;
}
