/**
 * Where the node keeps volumes on this machine, under the cluster's state folder (a temporary
 * folder that stop() removes), laid out as a kubelet's /var/lib/kubelet is:
 *
 *   volumes/pvc-UID/                                  a claim's volume, until the claim is deleted
 *   pods/POD_UID/volumes/kubernetes.io~empty-dir/NAME an emptyDir, until the pod is deleted
 *   pods/POD_UID/volumes/kubernetes.io~secret/NAME    a Secret's keys as files, until the pod is deleted
 *   pods/POD_UID/volumes/kubernetes.io~projected/NAME a projected volume's tokens, until the pod is deleted
 *   pods/POD_UID/containers/NAME/rootfs/              stands in for the container's own filesystem
 *                                                     (a workingDir outside every mount lands here)
 */
import { join } from 'node:path';

export class NodeDirs {
  constructor(readonly root: string) {}

  volume(volumeName: string): string {
    return join(this.root, 'volumes', volumeName);
  }

  pod(podUid: string): string {
    return join(this.root, 'pods', podUid);
  }

  emptyDir(podUid: string, volume: string): string {
    return join(this.pod(podUid), 'volumes', 'kubernetes.io~empty-dir', volume);
  }

  secretVolume(podUid: string, volume: string): string {
    return join(this.pod(podUid), 'volumes', 'kubernetes.io~secret', volume);
  }

  projectedVolume(podUid: string, volume: string): string {
    return join(this.pod(podUid), 'volumes', 'kubernetes.io~projected', volume);
  }

  containerRoot(podUid: string, container: string): string {
    return join(this.pod(podUid), 'containers', container, 'rootfs');
  }
}
