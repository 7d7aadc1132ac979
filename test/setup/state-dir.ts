/**
 * Each test file's builds keep their logs in a state directory of its own, never in the home of
 * whoever runs the tests: lib/local/stores/state-dir.ts reads $XDG_STATE_HOME, and the CLIs a test spawns
 * inherit it. Removed with the file's last test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const state = mkdtempSync(path.join(tmpdir(), 'step-runner-test-state-'));
process.env.XDG_STATE_HOME = state;

afterAll(() => rmSync(state, { recursive: true, force: true }));
