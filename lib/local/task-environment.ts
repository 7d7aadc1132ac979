import { EnvNames } from '../workflow/deployment-config.js';

export interface LocalTaskEnvironment {
  kubeconfig: string;
  context?: string;
  namespace: string;
  logsDir: string;
}

/**
 * The handlers read their deployment settings from the environment, as on Lambda; locally they run
 * in this process, so the runner points this process's environment at the cluster it chose.
 * Returns a function that puts the environment back.
 */
export function useLocalTaskEnvironment(settings: LocalTaskEnvironment): () => void {
  const names = [EnvNames.kubeconfig, EnvNames.context, EnvNames.namespace, EnvNames.logsDir, EnvNames.clusterName, EnvNames.logsBucket];
  const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
  process.env[EnvNames.kubeconfig] = settings.kubeconfig;
  process.env[EnvNames.namespace] = settings.namespace;
  process.env[EnvNames.logsDir] = settings.logsDir;
  if (settings.context) process.env[EnvNames.context] = settings.context;
  else delete process.env[EnvNames.context];
  delete process.env[EnvNames.clusterName];
  delete process.env[EnvNames.logsBucket];
  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
