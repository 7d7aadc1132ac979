import path from 'node:path';
import { clusterKubeconfig, logsDir, stateDir } from './state-dir.js';

describe('stateDir', () => {
  const home = '/home/someone';

  it('is --state-dir when given, resolved from the current directory', () => {
    expect(stateDir('/var/tmp/runner', { XDG_STATE_HOME: '/xdg' }, home)).toBe('/var/tmp/runner');
    expect(stateDir('here', {}, home)).toBe(path.resolve('here'));
  });

  it('is $XDG_STATE_HOME/step-runner, else ~/.local/state/step-runner', () => {
    expect(stateDir(undefined, { XDG_STATE_HOME: '/xdg/state' }, home)).toBe('/xdg/state/step-runner');
    expect(stateDir(undefined, {}, home)).toBe('/home/someone/.local/state/step-runner');
    expect(stateDir(undefined, { XDG_STATE_HOME: '' }, home)).toBe('/home/someone/.local/state/step-runner');
  });

  it('ignores a relative $XDG_STATE_HOME, as the XDG spec says, rather than write into the current directory', () => {
    expect(stateDir(undefined, { XDG_STATE_HOME: '.state' }, home)).toBe('/home/someone/.local/state/step-runner');
  });

  it('keeps logs per build under logs/, and the cluster kubeconfig beside them', () => {
    expect(logsDir('/s')).toBe('/s/logs');
    expect(clusterKubeconfig('/s')).toBe('/s/kubeconfig');
  });
});
