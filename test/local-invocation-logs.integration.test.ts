/**
 * Steps side by side run their Lambda invocations at the same time in one local process, where
 * Lambda gives each its own execution environment, or (AWS_LAMBDA_MAX_CONCURRENCY) its own
 * invocation context: each handler's log line must still name its own function, request and step.
 */
import { jest } from '@jest/globals';
import { logger } from '../lib/workflow/lambda-task.js';
import { localBuildsForFile } from './fixtures/local-builds.js';

const builds = localBuildsForFile({ prefix: 'invocation-logs' });

interface LogLine {
  message: string;
  function_name?: string;
  function_request_id?: string;
  step?: string;
}

it('keeps each invocation\'s log keys apart while steps run side by side', async () => {
  const lines: LogLine[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    for (const text of chunk.toString().split('\n')) if (text.startsWith('{')) lines.push(JSON.parse(text) as LogLine);
    return true;
  });
  logger.setLogLevel('INFO');
  try {
    const steps = ['a', 'b', 'c', 'd'].map((name) => `  - name: ${name}\n    image: alpine:3.20\n    needs: []\n    commands: [sleep 1]\n`).join('');
    const { summary } = await builds.build('side-by-side', `version: 1\ncheckout: false\nsteps:\n${steps}`);
    expect(summary.status).toBe('SUCCEEDED');
  } finally {
    logger.setLogLevel('SILENT');
    write.mockRestore();
  }
  // PollStep's "Step "x" is running" and FinishStep's "Step "x" succeeded; pod ... deleted".
  const stepLines = lines.flatMap((line) => {
    const named = /^Step "(\w+)" (is|succeeded)/.exec(line.message);
    return named ? [{ ...line, named: named[1]!, by: named[2] === 'is' ? 'pollStep' : 'finishStep' }] : [];
  });
  expect(new Set(stepLines.map((line) => line.named))).toEqual(new Set(['a', 'b', 'c', 'd']));
  for (const line of stepLines) expect({ step: line.step, function: line.function_name }).toEqual({ step: line.named, function: line.by });
  // One request id per invocation: a step's lines never carry another step's.
  const stepOfRequest = new Map<string, string>();
  for (const line of stepLines) {
    const seen = stepOfRequest.get(line.function_request_id!);
    expect(seen ?? line.named).toBe(line.named);
    stepOfRequest.set(line.function_request_id!, line.named);
  }
});
