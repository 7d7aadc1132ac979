/**
 * The metav1.Status that ends an exec session on its error channel, worded by whoever answers the
 * client on a real cluster. Over v5.channel.k8s.io that is the apiserver's stream translator, which
 * talks to the kubelet itself and re-words what it hears (so failures come wrapped twice); over
 * v4.channel.k8s.io it is the kubelet, with containerd's words for a non-zero exit. Clients read
 * the reason and the ExitCode cause; people read the message.
 */

export type ChannelProtocol = 'v5.channel.k8s.io' | 'v4.channel.k8s.io';

export interface ExecStatus {
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: { causes: { reason?: string; message: string }[] };
  code?: number;
}

export type ExecEnd =
  /** The command ran and exited (128 + signal when killed). */
  | { kind: 'exited'; exitCode: number }
  /** The runtime could not start it: containerd's error. */
  | { kind: 'failed'; message: string }
  /** The kubelet refused before starting anything (`container not found ("x")`). */
  | { kind: 'refused'; message: string };

/** apierrors.NewInternalError. */
function internalError(text: string): ExecStatus {
  return { metadata: {}, status: 'Failure', message: `Internal error occurred: ${text}`, reason: 'InternalError', details: { causes: [{ message: text }] }, code: 500 };
}

function nonZeroExit(exitCode: number, words: string): ExecStatus {
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: ${words}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  };
}

export function execStatus(end: ExecEnd, protocol: ChannelProtocol, argv: readonly string[]): ExecStatus {
  const translated = protocol === 'v5.channel.k8s.io';
  switch (end.kind) {
    case 'exited':
      if (end.exitCode === 0) return { metadata: {}, status: 'Success' };
      // The translator hears the exit as client-go's CodeExitError; the kubelet passes on containerd's error.
      return translated
        ? nonZeroExit(end.exitCode, `command terminated with exit code ${end.exitCode}`)
        : nonZeroExit(end.exitCode, `error executing command [${argv.join(' ')}], exit code ${end.exitCode}`);
    case 'failed': {
      const kubelet = internalError(`error executing command in container: ${end.message}`);
      return translated ? internalError(kubelet.message ?? '') : kubelet;
    }
    case 'refused':
      // The translator's own SPDY request to the kubelet is what got refused.
      return internalError(translated ? `unable to upgrade connection: ${end.message}` : end.message);
  }
}
