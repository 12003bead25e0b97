/** What the user reads after `ptols/run`: a one-line verdict and the text of the run panel. */
import type { RunOutput, RunResult } from './protocol';

function error(value: number): string {
  if (Number.isNaN(value)) {
    return '?';
  }
  return value === 0 ? '0' : value.toPrecision(3).replace(/\.?0+(e|$)/, '$1');
}

function outputLine(output: RunOutput, width: number): string {
  const verdict = output.ok ? 'ok' : 'MISMATCH';
  return `  ${output.name.padEnd(width)}  max abs error ${error(output.maxAbsError)}, max rel error ${error(output.maxRelError)}: ${verdict}`;
}

/** The notification's text; the server's own summary when it gave one. */
export function runVerdict(fn: string, result: RunResult): string {
  if (result.message !== '') {
    return result.message;
  }
  if (result.ok) {
    return `${fn}: the simulator and the reference interpreter agree on ${result.outputs.length} results`;
  }
  const wrong = result.outputs.filter((output) => !output.ok).map((output) => output.name);
  return wrong.length > 0 ? `${fn}: ${wrong.join(', ')} differ from the reference interpreter` : `${fn}: the run failed`;
}

/** The panel's section for one run, newest at the bottom. */
export function runReport(fn: string, source: string, result: RunResult, when: Date): string {
  const lines = [`=== ${fn} in ${source} at ${when.toISOString().slice(11, 19)} UTC: ${result.ok ? 'passed' : 'FAILED'}`];
  lines.push(runVerdict(fn, result));
  if (result.note !== undefined) {
    lines.push(`note: ${result.note}`);
  }
  const width = Math.max(0, ...result.outputs.map((output) => output.name.length));
  for (const output of result.outputs) {
    lines.push(outputLine(output, width));
  }
  const log = result.log.trimEnd();
  if (log !== '') {
    lines.push('--- log', log);
  }
  return `${lines.join('\n')}\n`;
}
