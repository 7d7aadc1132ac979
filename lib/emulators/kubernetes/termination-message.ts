/**
 * A container's termination message, as the kubelet makes and reads it
 * (kubernetes/kubernetes pkg/kubelet/kuberuntime/kuberuntime_container.go): before the container
 * starts, an empty file of the pod's on the node, mode 0666 so that any user of the container may
 * write it, bind-mounted at the container's `terminationMessagePath` (makeMounts, "Mount the
 * termination message file"); once it has exited, at most 4096 bytes of it become the terminated
 * state's `message` (getTerminationMessage, maxMsgSize). With `terminationMessagePolicy:
 * FallbackToLogsOnError` an empty file of a failed container gives way to the log's last lines
 * (at most 80 lines and 2048 bytes: kubelet's kubecontainer.MaxContainerTerminationMessageLogLines
 * and ...LogLength).
 *
 * Made under the Docker runtime only: the process runtime's containers share this machine's
 * filesystem, where no file can be mounted at /dev/termination-log.
 */
import { chmod, readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Container } from './objects.js';
import type { ContainerMount } from './runtime/container-runtime.js';

export const TERMINATION_MESSAGE_MAX_BYTES = 4096;
export const FALLBACK_LOG_LINES = 80;
export const FALLBACK_LOG_BYTES = 2048;

/** Creates the container's empty message file and the mount that puts it at its terminationMessagePath. */
export async function terminationMessageMount(podDir: string, container: Container): Promise<ContainerMount & { file: string }> {
  const file = join(podDir, 'containers', container.name, 'termination-log');
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, '');
  await chmod(file, 0o666);
  return { file, containerPath: typeof container['terminationMessagePath'] === 'string' ? container['terminationMessagePath'] : '/dev/termination-log', hostPath: file, readOnly: false };
}

/** The terminated state's `message`: the file's first 4096 bytes, else (FallbackToLogsOnError, failed) the log's tail; undefined when empty. */
export async function readTerminationMessage(file: string, container: Container, exitCode: number, logTail: () => string): Promise<string | undefined> {
  const written = await readFile(file).then((content) => content.subarray(0, TERMINATION_MESSAGE_MAX_BYTES).toString('utf8'), () => '');
  if (written !== '') return written;
  if (container['terminationMessagePolicy'] === 'FallbackToLogsOnError' && exitCode !== 0) {
    const tail = logTail().split('\n').slice(-FALLBACK_LOG_LINES).join('\n');
    const bytes = Buffer.from(tail, 'utf8');
    return bytes.length > FALLBACK_LOG_BYTES ? bytes.subarray(bytes.length - FALLBACK_LOG_BYTES).toString('utf8') : tail || undefined;
  }
  return undefined;
}
