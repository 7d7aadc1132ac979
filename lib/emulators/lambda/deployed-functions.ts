/**
 * Each Lambda function's memory and timeout as serverless.yml deploys it: read from serverless.yml
 * itself, so the local invocations get what the deployed ones get and no copy can drift from it.
 */
import { fileURLToPath } from 'node:url';
import { readYamlFile } from '../../workflow/parsed-yaml.js';

export const SERVERLESS_FILE = fileURLToPath(new URL('../../../serverless.yml', import.meta.url));

export interface DeployedFunction {
  /** serverless.yml's name for it (the key under `functions:`). */
  name: string;
  memorySize: number;
  timeoutSeconds: number;
}

/** A function serverless.yml does not define: a local invocation of it would have no settings. */
export class UnknownFunction extends Error {
  override readonly name = 'UnknownFunction';
}

/**
 * A memory or timeout that is not a plain number (e.g. a `${param:...}` variable), which only the
 * Serverless Framework could resolve: refused rather than guessed.
 */
export class UnreadableFunctionSetting extends Error {
  override readonly name = 'UnreadableFunctionSetting';
}

interface ServerlessFile {
  provider?: { memorySize?: unknown; timeout?: unknown };
  functions?: Record<string, { memorySize?: unknown; timeout?: unknown } | null>;
}

/** Every function of the file, a setting it leaves out taken from `provider:` as the framework does. */
export function readDeployedFunctions(file = SERVERLESS_FILE): ReadonlyMap<string, DeployedFunction> {
  const serverless = readYamlFile(file) as ServerlessFile;
  const setting = (where: string, value: unknown): number => {
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
    throw new UnreadableFunctionSetting(`${file}: ${where} is ${JSON.stringify(value)}; the local executor reads a plain number there`);
  };
  return new Map(
    Object.entries(serverless.functions ?? {}).map(([name, fn]) => [
      name,
      {
        name,
        memorySize: fn?.memorySize !== undefined ? setting(`functions.${name}.memorySize`, fn.memorySize) : setting('provider.memorySize', serverless.provider?.memorySize),
        timeoutSeconds: fn?.timeout !== undefined ? setting(`functions.${name}.timeout`, fn.timeout) : setting('provider.timeout', serverless.provider?.timeout),
      },
    ]),
  );
}

let deployed: ReadonlyMap<string, DeployedFunction> | undefined;

/** One function's deployed settings, by serverless.yml's name for it (serverless.yml read once). */
export function deployedFunction(name: string): DeployedFunction {
  deployed ??= readDeployedFunctions();
  const found = deployed.get(name);
  if (!found) throw new UnknownFunction(`serverless.yml defines no function ${name}`);
  return found;
}

/** `provider.architecture` (the framework's default, x86_64, when absent): what Lambda bills the functions' GB-seconds at. */
export function deployedArchitecture(file = SERVERLESS_FILE): 'arm64' | 'x86_64' {
  const serverless = readYamlFile(file) as { provider?: { architecture?: unknown } };
  const architecture = serverless.provider?.architecture ?? 'x86_64';
  if (architecture === 'arm64' || architecture === 'x86_64') return architecture;
  throw new UnreadableFunctionSetting(`${file}: provider.architecture is ${JSON.stringify(architecture)}; Lambda has arm64 and x86_64`);
}
