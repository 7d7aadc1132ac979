/**
 * The options of a `pods/exec` request, read from its query as the apiserver decodes a
 * PodExecOptions, and the streams the kubelet then opens for it.
 */

export interface ExecOptions {
  /** `command` repeated: the argv, in order. */
  command: string[];
  /** Empty when the request names none. */
  container: string;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/**
 * A query parameter as a boolean, by the apiserver's conversion: only a missing parameter, `false`
 * (any case) and `0` are false, so `?stdout=` asks for stdout.
 */
function flag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  return value !== null && value !== '0' && value.toLowerCase() !== 'false';
}

export function execOptions(query: URLSearchParams): ExecOptions {
  return {
    command: query.getAll('command'),
    container: query.get('container') ?? '',
    stdin: flag(query, 'stdin'),
    stdout: flag(query, 'stdout'),
    stderr: flag(query, 'stderr'),
    tty: flag(query, 'tty'),
  };
}

export interface ExecStreams {
  stdin: boolean;
  stdout: boolean;
  /** False with a tty: a terminal has one output, and it is stdout. */
  stderr: boolean;
  tty: boolean;
}

/**
 * The streams the kubelet opens, or its refusal when there are none (it answers 400 with this text,
 * and clients see it after "unable to upgrade connection: ").
 */
export function execStreams(options: ExecOptions): ExecStreams | { refusal: string } {
  const streams = { stdin: options.stdin, stdout: options.stdout, stderr: options.stderr && !options.tty, tty: options.tty };
  if (!streams.stdin && !streams.stdout && !streams.stderr) return { refusal: 'you must specify at least 1 of stdin, stdout, stderr' };
  return streams;
}
