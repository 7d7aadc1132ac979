/**
 * Every test's embedded cluster runs steps as local processes unless the test asks for Docker
 * (`runtime`, `--runtime docker`): without this, a machine with a Docker daemon would run the same
 * test in Docker and one without it as processes (lib/emulators/kubernetes/runtime/runtime-choice.ts),
 * and the CLIs a test spawns inherit it. A value already set (STEP_RUNNER_RUNTIME=docker npm run
 * jest) is kept.
 */
process.env.STEP_RUNNER_RUNTIME ||= 'process';
