/**
 * The Docker network pod sandboxes go on. Docker's default `bridge` when the daemon has one, so a
 * pod reaches what the machine reaches, as a pod on a cloud node does; a daemon started without
 * it (--bridge=none) gets a bridge network of ours, made once and shared by every cluster.
 */
import type Docker from 'dockerode';

export const DEFAULT_BRIDGE = 'bridge';
export const OWN_NETWORK = 'step-runner';

function statusOf(error: unknown): number | undefined {
  return (error as { statusCode?: number }).statusCode;
}

async function exists(docker: Docker, name: string): Promise<boolean> {
  try {
    await docker.getNetwork(name).inspect();
    return true;
  } catch (error) {
    if (statusOf(error) === 404) return false;
    throw error;
  }
}

interface Listed {
  Id: string;
  Name: string;
  Created: string;
}

/** Of several networks with one name, the one every cluster picks: the oldest, then the lowest id. */
export function chosenNetwork(listed: readonly Listed[], name: string): Listed | undefined {
  return listed
    .filter((n) => n.Name === name)
    .sort((a, b) => a.Created.localeCompare(b.Created) || a.Id.localeCompare(b.Id))[0];
}

/**
 * Ours, made if need be. CheckDuplicate makes the daemon refuse a second network of the name (409),
 * but it checks without a lock, so two clusters starting at once can still make one each; a name
 * two networks share is one no container can join, so every cluster takes the same one (the
 * oldest) by its id, and the maker of another removes that.
 */
async function ownNetwork(docker: Docker): Promise<string> {
  let made: string | undefined;
  if (!(await exists(docker, OWN_NETWORK))) {
    try {
      made = (await docker.createNetwork({ Name: OWN_NETWORK, Driver: 'bridge', CheckDuplicate: true, Labels: { 'step-runner.dev/network': 'sandboxes' } })).id;
    } catch (error) {
      // Another cluster made it first.
      if (statusOf(error) !== 409) throw error;
    }
  }
  const listed = (await docker.listNetworks({ filters: { name: [OWN_NETWORK] } })) as unknown as Listed[];
  const chosen = chosenNetwork(listed, OWN_NETWORK);
  if (chosen === undefined) throw new Error(`network ${OWN_NETWORK} was removed while it was being made`);
  if (made !== undefined && made !== chosen.Id) await docker.getNetwork(made).remove().catch(() => {});
  return chosen.Id;
}

/** The network sandboxes join (a name or an id): `requested` as given, else the default bridge, else ours. */
export async function sandboxNetwork(docker: Docker, requested?: string): Promise<string> {
  if (requested !== undefined) return requested;
  if (await exists(docker, DEFAULT_BRIDGE)) return DEFAULT_BRIDGE;
  return ownNetwork(docker);
}

/** The sandbox's address on `network`, from its inspect after start. */
export function sandboxIP(info: Docker.ContainerInspectInfo, network: string): string | undefined {
  const networks = info.NetworkSettings.Networks as Record<string, { IPAddress?: string } | undefined>;
  const onNetwork = networks[network]?.IPAddress;
  if (onNetwork) return onNetwork;
  // Named by id, or the host's network: the one address the container has.
  const any = Object.values(networks).find((n) => n?.IPAddress)?.IPAddress;
  if (any) return any;
  return network === 'host' ? '127.0.0.1' : undefined;
}

/**
 * The host's address on the network, its gateway: what a container reaches this machine at on a
 * Linux daemon's bridge. The host's own network (or one that names no gateway) is loopback.
 */
export async function networkGateway(docker: Docker, network: string): Promise<string> {
  if (network === 'host') return '127.0.0.1';
  const info = (await docker.getNetwork(network).inspect()) as { IPAM?: { Config?: { Gateway?: string }[] | null } };
  return info.IPAM?.Config?.find((config) => config.Gateway)?.Gateway ?? '127.0.0.1';
}
