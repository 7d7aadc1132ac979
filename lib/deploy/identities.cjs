'use strict';
/**
 * The deployment's identities (docs/deploy.md, "Identities"), read from the file params.identitiesFile
 * names (identities.yml by default; none when it does not exist) and checked by the runner's own
 * rules (lib/workflow/identities.ts, loaded through tsx), so a bad file stops `osls package` with
 * the identity and the field, before anything is deployed.
 *
 * Two uses, CommonJS because the Framework require()s both:
 * - a plugin (serverless.yml `plugins`) that adds one AWS::EKS::PodIdentityAssociation per identity
 *   to the compiled template: CloudFormation has no loop, and `resources` is one map;
 * - `${file(lib/deploy/identities.cjs):setting}`, the functions' STEP_IDENTITIES (JSON).
 */
/* global require, module, __filename, __dirname */
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose (above) */
const { existsSync, readFileSync } = require('node:fs');
const path = require('node:path');

const DEFAULT_FILE = 'identities.yml';
/** Where serverless.yml is: the file's name is relative to it. */
const SERVICE_DIR = path.resolve(__dirname, '../..');

/** The runner's own check and naming, from its TypeScript source (tsx compiles it for require()). */
function runnerRules() {
  const tsx = require('tsx/cjs/api');
  const identities = tsx.require('../workflow/identities.ts', __filename);
  const names = tsx.require('../pipeline/names.ts', __filename);
  return { checkIdentities: identities.checkIdentities, prefix: names.IDENTITY_SERVICE_ACCOUNT_PREFIX };
}

/**
 * The file as written (the map STEP_IDENTITIES carries too, checked again by each function at
 * start) and the identities it declares, checked; none when there is no file.
 */
async function readIdentities(file, { serviceDir = SERVICE_DIR, rules = runnerRules } = {}) {
  const where = path.resolve(serviceDir, file || DEFAULT_FILE);
  if (!existsSync(where)) return { declared: {}, identities: [] };
  const YAML = require('yaml');
  const { checkIdentities } = rules();
  const declared = YAML.parse(readFileSync(where, 'utf8')) ?? {};
  const result = checkIdentities(declared);
  if (!result.ok) throw new Error(`${path.relative(serviceDir, where)}: ${result.problems.join('; ')}`);
  return { declared, identities: result.value };
}

/** CloudFormation logical ids: letters and digits only. */
function logicalId(name) {
  return `IdentityAssociation${name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}`;
}

/** One association per identity: its service account in the build namespace, to its role. */
function associations(identities, { clusterName, namespace, prefix }) {
  return Object.fromEntries(
    identities.map((identity) => [
      logicalId(identity.name),
      {
        Type: 'AWS::EKS::PodIdentityAssociation',
        Properties: { ClusterName: clusterName, Namespace: namespace, ServiceAccount: `${prefix}${identity.name}`, RoleArn: identity.roleArn },
      },
    ]),
  );
}

class IdentitiesPlugin {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'before:package:finalize': () => this.addAssociations() };
  }

  /** serverless.yml's `custom.identities` (file, clusterName, namespace), its params resolved. */
  async addAssociations() {
    const { service } = this.serverless;
    const { file, clusterName, namespace } = service.custom?.identities ?? {};
    const { identities } = await readIdentities(file);
    const { prefix } = runnerRules();
    Object.assign(service.provider.compiledCloudFormationTemplate.Resources, associations(identities, { clusterName, namespace, prefix }));
  }
}

module.exports = IdentitiesPlugin;
module.exports.readIdentities = readIdentities;
module.exports.associations = associations;
/** serverless.yml: `STEP_IDENTITIES: ${file(lib/deploy/identities.cjs):setting}`; '' when none. */
module.exports.setting = async ({ resolveVariable }) => {
  const { declared, identities } = await readIdentities(await resolveVariable('param:identitiesFile'));
  return identities.length > 0 ? JSON.stringify(declared) : '';
};
