/** Where FinishStep keeps a step's whole log: S3 on AWS (lib/lambda), a folder locally (lib/local). */
export interface StepLogStore {
  /** Stores the log and returns where it went (s3://bucket/key or a file path). */
  put(buildId: string, step: string, log: string): Promise<string>;
}

/**
 * `BUILD/STEP.log`, each part made safe: build ids and step names are validated elsewhere, but a
 * key or a path must never climb out of its prefix.
 */
export function stepLogName(buildId: string, step: string): string {
  return `${safeSegment(buildId)}/${safeSegment(step)}.log`;
}

function safeSegment(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_');
}
