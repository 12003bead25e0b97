/**
 * Which Python runs the server, and what to tell the user when it cannot.
 * Candidates: the `ptoc.python` setting alone when it is set; else the Python extension's
 * selected interpreter, then the usual names on PATH. The first that runs and is new enough
 * wins (see launch.ts).
 */

export const DEFAULT_PYTHON = 'python3';
/** Tried in this order after the Python extension's interpreter (ptoc needs Python 3.11+). */
export const PATH_PYTHONS: readonly string[] = [DEFAULT_PYTHON, 'python3.14', 'python3.13', 'python3.12', 'python3.11', 'python'];

export type InterpreterSource = 'setting' | 'python-extension' | 'default';

export interface Interpreter {
  path: string;
  source: InterpreterSource;
}

export interface InterpreterInputs {
  /** The `ptoc.python` setting as written (may hold `~` or `${workspaceFolder}`). */
  configured: string | undefined;
  /** Asks the Python extension; resolves undefined when it is absent or has no selection. */
  pythonExtension: () => Promise<string | undefined>;
  workspaceFolder: string | undefined;
  home: string | undefined;
  /** Told why a source was skipped (for the output channel). */
  log?: (message: string) => void;
}

/** Expands `~`, `${userHome}`, `${workspaceFolder}` and `${env:NAME}`; undefined if a variable has no value. */
export function expandVariables(
  value: string,
  context: { workspaceFolder: string | undefined; home: string | undefined; env?: Record<string, string | undefined> },
): string | undefined {
  const state = { missing: false };
  const lookup = (found: string | undefined): string => {
    if (found === undefined || found === '') {
      state.missing = true;
      return '';
    }
    return found;
  };
  let result = value.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_]\w*))\}/g, (_match, name: string, envName?: string) => {
    if (name === 'workspaceFolder') {
      return lookup(context.workspaceFolder);
    }
    if (name === 'userHome') {
      return lookup(context.home);
    }
    return lookup(context.env?.[envName ?? '']);
  });
  if (result === '~' || result.startsWith('~/')) {
    result = lookup(context.home) + result.slice(1);
  }
  return state.missing ? undefined : result;
}

/** The interpreters to try, in order: the setting alone, else the Python extension's and PATH's. */
export async function resolveInterpreters(inputs: InterpreterInputs): Promise<Interpreter[]> {
  const configured = inputs.configured?.trim() ?? '';
  if (configured !== '') {
    const expanded = expandVariables(configured, {
      workspaceFolder: inputs.workspaceFolder,
      home: inputs.home,
      env: process.env,
    });
    if (expanded !== undefined) {
      return [{ path: expanded, source: 'setting' }];
    }
    inputs.log?.(`ptoc.python "${configured}" uses a variable with no value here; ignoring it`);
  }
  const found: Interpreter[] = [];
  try {
    const fromExtension = (await inputs.pythonExtension())?.trim();
    if (fromExtension) {
      found.push({ path: fromExtension, source: 'python-extension' });
    }
  } catch (error) {
    inputs.log?.(`The Python extension did not give an interpreter: ${String(error)}`);
  }
  return [...found, ...PATH_PYTHONS.map((path): Interpreter => ({ path, source: 'default' }))];
}

export function describeSource(interpreter: Interpreter): string {
  switch (interpreter.source) {
    case 'setting':
      return 'from the ptoc.python setting';
    case 'python-extension':
      return "the Python extension's selected interpreter";
    case 'default':
      return 'the default, from PATH';
  }
}

export interface Command {
  command: string;
  args: string[];
}

/** The server command; the language client appends `--stdio` itself. */
export function serverCommand(python: string): Command {
  return { command: python, args: ['-m', 'ptols'] };
}

/**
 * Run before the server, with the server's environment: tells "no interpreter", "too old" and
 * "ptoc not installed" apart from server crashes, and says which ptoc and Python will run.
 */
export const PROBE_SCRIPT = [
  'import json, sys',
  'if sys.version_info < (3, 11): sys.exit("ptoc needs Python 3.11 or newer; this is Python " + sys.version.split()[0])',
  'import ptoc, ptols',
  'print(json.dumps({"python": sys.version.split()[0], "executable": sys.executable, "ptoc": ptoc.__version__, "location": ptoc.__file__}))',
].join('\n');

export function probeCommand(python: string): Command {
  return { command: python, args: ['-c', PROBE_SCRIPT] };
}

/** What the probe reports about the server that will run. */
export interface ServerInfo {
  /** Python's version, e.g. 3.12.3. */
  python: string;
  executable: string;
  /** ptoc's version and its `__init__.py`. */
  ptoc: string;
  location: string;
}

export function parseProbeOutput(stdout: string): ServerInfo | undefined {
  try {
    const value = JSON.parse(stdout.trim().split(/\r?\n/).pop() ?? '') as Record<string, unknown>;
    const fields = ['python', 'executable', 'ptoc', 'location'] as const;
    if (fields.every((field) => typeof value[field] === 'string')) {
      return value as unknown as ServerInfo;
    }
  } catch {
    // not JSON: handled below
  }
  return undefined;
}

export interface ProbeOutcome {
  /** Node's spawn error code (`ENOENT`, `EACCES`, `ETIMEDOUT`...) when the process did not run. */
  errorCode?: string;
  exitCode: number | null;
  stdout?: string;
  stderr: string;
}

export interface ProbeVerdict {
  ok: boolean;
  /** A one-line message for a notification, naming the fix. */
  message: string;
  /** A shell command that fixes it, when there is one. */
  fixCommand?: string;
  /** Short reason for the status bar tooltip. */
  reason: string;
  /** The interpreter is absent or too old: the next candidate may do. */
  tryNext?: boolean;
  /** Set when ok. */
  info?: ServerInfo;
}

/** Quotes a path for a POSIX shell only when it needs it. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

export function judgeProbe(python: string, outcome: ProbeOutcome): ProbeVerdict {
  if (outcome.errorCode === undefined && outcome.exitCode === 0) {
    const info = parseProbeOutput(outcome.stdout ?? '');
    if (info !== undefined) {
      return { ok: true, message: `ptols is importable with ${python}`, reason: 'ready', info };
    }
    return {
      ok: false,
      message: `${python} ran the ptoc check but did not answer it: is it a Python interpreter? See the PyPTO log.`,
      reason: 'not a Python',
      tryNext: true,
    };
  }
  if (outcome.errorCode === 'ENOENT') {
    return {
      ok: false,
      message: `The Python interpreter ${python} was not found: set "ptoc.python" to a Python 3.11+ interpreter.`,
      reason: 'interpreter not found',
      tryNext: true,
    };
  }
  if (outcome.errorCode === 'EACCES') {
    return {
      ok: false,
      message: `The Python interpreter ${python} cannot be run (permission denied): set "ptoc.python" to a Python 3.11+ interpreter.`,
      reason: 'interpreter not executable',
      tryNext: true,
    };
  }
  if (outcome.errorCode !== undefined) {
    return {
      ok: false,
      message: `Could not run ${python} (${outcome.errorCode}); see the PyPTO log.`,
      reason: outcome.errorCode,
    };
  }
  if (/needs Python 3\.11|SyntaxError|requires? Python|python_requires/i.test(outcome.stderr)) {
    return {
      ok: false,
      message: `${python} is too old for ptoc (Python 3.11+ is required): set "ptoc.python" to a newer interpreter.`,
      reason: 'Python too old',
      tryNext: true,
    };
  }
  if (/No module named ['"]?(ptols|ptoc|pygls|lsprotocol)/.test(outcome.stderr)) {
    const fixCommand = `${shellQuote(python)} -m pip install ptoc`;
    return {
      ok: false,
      message: `ptoc is not installed in ${python}: run \`${fixCommand}\` (or set "ptoc.importStrategy" to "useBundled", or "ptoc.python" to an interpreter that has it).`,
      fixCommand,
      reason: 'ptoc is not installed',
    };
  }
  const lastLine = outcome.stderr.trim().split(/\r?\n/).pop() ?? '';
  return {
    ok: false,
    message: `\`${python} -c "import ptols"\` failed${lastLine ? `: ${lastLine}` : ` with exit code ${String(outcome.exitCode)}`}. See the PyPTO log.`,
    reason: 'ptols failed to import',
  };
}
