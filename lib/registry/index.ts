// The public face of lib/registry: does an image exist in its registry, asked before any pod.
export * from './types.js';
export { manifestTarget, manifestUrl, isLoopbackHost, DOCKER_HUB_API_HOST, type ManifestTarget } from './reference.js';
export { parseChallenge, type Challenge } from './challenge.js';
export { classifyManifestAnswer, classifyFailure, registryWords } from './verdict.js';
export { checkManifest, MANIFEST_ACCEPT, type ManifestCheckOptions } from './manifest-check.js';
export { checkImages, DEFAULT_IMAGE_TIMEOUT_MS, type CheckImagesOptions } from './check-images.js';
export { parseDockerConfigs, dockerConfigLookup, configKeyHost, firstOf, withRegistryAuths } from './docker-config.js';
export { ecrRegistriesOf, ecrAuthorization, ecrApiEndpoint, decodeEcrAuth, EcrApiError, type EcrRegistryHost, type EcrAuthorization, type EcrLoginOptions } from './ecr-login.js';
export { ecrCheck, ecrRegistry, type EcrCheck, type EcrOptions } from './ecr.js';
export { verdictCache, CACHE_TTL_MS, type VerdictCache } from './verdict-cache.js';
export { imageChecker, type ImageChecker, type ImageCheckReport, type ImageCheckRequest, type ImageCheckerOptions } from './image-checker.js';
export { findManifest, tagManifest, type RegistryAccess, type CopyOutcome } from './manifest-copy.js';
