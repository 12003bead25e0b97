/**
 * How the server is launched: with the ptoc bundled in the extension (`bundled/libs` first on
 * the interpreter's path, so any Python 3.11+ runs it) or with the interpreter's own ptoc, and
 * which of the candidate interpreters does it.
 */
import { delimiter } from 'node:path';
import { judgeProbe, type Interpreter, type ProbeOutcome, type ProbeVerdict, type ServerInfo } from './interpreter';
import type { ImportStrategy } from './settings';

export type Environment = Record<string, string | undefined>;

/**
 * The server's (and the probe's) environment. With the bundle, its folder goes before anything
 * on PYTHONPATH: the bundled ptoc wins over one installed in the environment, while the
 * environment's compiled packages the bundle lacks (tree-sitter, numpy) stay importable.
 */
export function serverEnvironment(strategy: ImportStrategy, bundledLibs: string | undefined, base: Environment): Environment {
  const env: Environment = { ...base, PYTHONUNBUFFERED: '1' };
  if (strategy === 'useBundled' && bundledLibs !== undefined) {
    const rest = base.PYTHONPATH ?? '';
    env.PYTHONPATH = rest === '' ? bundledLibs : `${bundledLibs}${delimiter}${rest}`;
  }
  return env;
}

/** The bundle only counts when it is there (a development build may lack it). */
export function effectiveStrategy(wanted: ImportStrategy, bundleExists: boolean): ImportStrategy {
  return wanted === 'useBundled' && !bundleExists ? 'fromEnvironment' : wanted;
}

/** One line for the log and the status item's tooltip: which ptoc, from where, on which Python. */
export function describeServer(info: ServerInfo, strategy: ImportStrategy): string {
  const origin = strategy === 'useBundled' ? 'bundled with the extension' : `from the environment (${info.location})`;
  return `ptoc ${info.ptoc} ${origin}, on Python ${info.python} (${info.executable})`;
}

export type Choice =
  | { ok: true; interpreter: Interpreter; info: ServerInfo }
  | { ok: false; interpreter: Interpreter; verdict: ProbeVerdict };

/**
 * Probes the candidates in order. One that is absent or too old passes the turn to the next;
 * any other outcome (ready, or a ptoc that fails) is the answer. When none runs, the answer
 * names every interpreter tried.
 */
export async function chooseInterpreter(
  candidates: readonly Interpreter[],
  probe: (python: string) => Promise<ProbeOutcome>,
  log: (message: string) => void = () => undefined,
): Promise<Choice> {
  const skipped: string[] = [];
  for (const interpreter of candidates) {
    const verdict = judgeProbe(interpreter.path, await probe(interpreter.path));
    if (verdict.ok && verdict.info !== undefined) {
      return { ok: true, interpreter, info: verdict.info };
    }
    if (!verdict.tryNext || candidates.length === 1) {
      return { ok: false, interpreter, verdict };
    }
    log(`${interpreter.path}: ${verdict.reason}`);
    skipped.push(`${interpreter.path} (${verdict.reason})`);
  }
  const first = candidates[0] ?? { path: 'python3', source: 'default' };
  return {
    ok: false,
    interpreter: first,
    verdict: {
      ok: false,
      message: `No Python 3.11 or newer was found (tried ${skipped.join(', ')}): install one, or set "ptoc.python" to it.`,
      reason: 'no Python 3.11+',
    },
  };
}
