/**
 * Each test file's builds keep their logs in a state directory of its own, never in the home of
 * whoever runs the tests: lib/local/stores/state-dir.ts reads $XDG_STATE_HOME, and the CLIs a test spawns
 * inherit it. Made before the file's first test and removed after its last: a file none of whose
 * tests runs (all skipped, or none matching -t) runs neither hook, so it never has one to leave.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const state = path.join(tmpdir(), `step-runner-test-state-${process.pid}-${randomBytes(6).toString('hex')}`);
process.env.XDG_STATE_HOME = state;

beforeAll(() => mkdirSync(state, { mode: 0o700 }));
afterAll(() => rmSync(state, { recursive: true, force: true }));
