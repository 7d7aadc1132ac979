/** Which of several same-named networks every cluster joins, and a sandbox's address on it. */
import type Docker from 'dockerode';
import { chosenNetwork, sandboxIP } from './network.js';

describe('chosenNetwork', () => {
  it('is the oldest of the name, then the lowest id, whatever order the daemon lists them in', () => {
    const listed = [
      { Id: 'b2', Name: 'step-runner', Created: '2026-12-01T10:00:00.2Z' },
      { Id: 'zz', Name: 'step-runner-other', Created: '2026-12-01T09:00:00Z' },
      { Id: 'a9', Name: 'step-runner', Created: '2026-12-01T10:00:00.1Z' },
      { Id: 'a1', Name: 'step-runner', Created: '2026-12-01T10:00:00.1Z' },
    ];
    expect(chosenNetwork(listed, 'step-runner')?.Id).toBe('a1');
    expect(chosenNetwork([...listed].reverse(), 'step-runner')?.Id).toBe('a1');
    expect(chosenNetwork([], 'step-runner')).toBeUndefined();
  });
});

describe('sandboxIP', () => {
  const inspected = (networks: Record<string, { IPAddress: string }>) => ({ NetworkSettings: { Networks: networks } }) as unknown as Docker.ContainerInspectInfo;

  it.each([
    ['by name', inspected({ 'step-runner': { IPAddress: '172.18.0.2' } }), 'step-runner', '172.18.0.2'],
    ['named by id', inspected({ 'step-runner': { IPAddress: '172.18.0.3' } }), '7b889beaeaeb', '172.18.0.3'],
    ['the host network', inspected({ host: { IPAddress: '' } }), 'host', '127.0.0.1'],
    ['no address', inspected({ none: { IPAddress: '' } }), 'none', undefined],
  ])('%s', (_name, info, network, expected) => {
    expect(sandboxIP(info, network)).toBe(expected);
  });
});
