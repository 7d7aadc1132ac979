/** The last lines of a log, bounded in lines and bytes, for state outputs and Causes. */
export function logTail(log: string, maxLines = 20, maxChars = 2000): string {
  const lines = log.replace(/\n$/, '').split('\n');
  let tail = lines.slice(-maxLines).join('\n');
  if (tail.length > maxChars) tail = `…${tail.slice(tail.length - maxChars + 1)}`;
  return tail;
}
