/** How the kubelet names a container's end from what its runtime reports. */
import type { ContainerExit } from './runtime/container-runtime.js';

/** OOMKilled when the kernel killed it; ContainerStatusUnknown when the runtime lost it; else by its exit code. */
export function exitReason(exit: ContainerExit): string {
  if (exit.lost !== undefined) return 'ContainerStatusUnknown';
  if (exit.reason === 'OOMKilled') return 'OOMKilled';
  return exit.exitCode === 0 ? 'Completed' : 'Error';
}
