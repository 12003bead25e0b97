import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  expandVariables,
  judgeProbe,
  parseProbeOutput,
  PATH_PYTHONS,
  PROBE_SCRIPT,
  probeCommand,
  resolveInterpreters,
  serverCommand,
  shellQuote,
  type InterpreterInputs,
} from '../src/logic/interpreter';

function inputs(overrides: Partial<InterpreterInputs>): InterpreterInputs {
  return {
    configured: '',
    pythonExtension: () => Promise.resolve(undefined),
    workspaceFolder: '/ws',
    home: '/home/u',
    ...overrides,
  };
}

describe('resolveInterpreter', () => {
  it('prefers the ptoc.python setting and never asks the Python extension then', async () => {
    let asked = false;
    const result = await resolveInterpreters(
      inputs({
        configured: '${workspaceFolder}/.venv/bin/python',
        pythonExtension: () => {
          asked = true;
          return Promise.resolve('/other/python');
        },
      }),
    );
    assert.deepEqual(result, [{ path: '/ws/.venv/bin/python', source: 'setting' }]);
    assert.equal(asked, false);
  });

  it("uses the Python extension's interpreter when the setting is empty", async () => {
    const result = await resolveInterpreters(inputs({ configured: '  ', pythonExtension: () => Promise.resolve('/env/bin/python') }));
    assert.deepEqual(result[0], { path: '/env/bin/python', source: 'python-extension' });
    assert.deepEqual(
      result.slice(1).map((i) => i.path),
      ['python3', 'python3.14', 'python3.13', 'python3.12', 'python3.11', 'python'],
    );
  });

  it("falls back to PATH's pythons when the extension is absent, silent or broken", async () => {
    const logged: string[] = [];
    const fromPath = PATH_PYTHONS.map((path) => ({ path, source: 'default' }));
    assert.deepEqual(await resolveInterpreters(inputs({})), fromPath);
    assert.deepEqual(await resolveInterpreters(inputs({ pythonExtension: () => Promise.resolve('  ') })), fromPath);
    const broken = await resolveInterpreters(
      inputs({ pythonExtension: () => Promise.reject(new Error('no API')), log: (m) => logged.push(m) }),
    );
    assert.deepEqual(broken, fromPath);
    assert.deepEqual(logged, ['The Python extension did not give an interpreter: Error: no API']);
  });

  it('skips a setting whose variable has no value', async () => {
    const logged: string[] = [];
    const result = await resolveInterpreters(
      inputs({ configured: '${workspaceFolder}/py', workspaceFolder: undefined, log: (m) => logged.push(m) }),
    );
    assert.deepEqual(result[0], { path: 'python3', source: 'default' });
    assert.equal(logged.length, 1);
  });
});

describe('expandVariables', () => {
  const context = { workspaceFolder: '/ws', home: '/home/u', env: { VENV: '/venvs/a' } };
  it('expands the supported variables', () => {
    assert.equal(expandVariables('~/py/bin/python', context), '/home/u/py/bin/python');
    assert.equal(expandVariables('~', context), '/home/u');
    assert.equal(expandVariables('${userHome}/x', context), '/home/u/x');
    assert.equal(expandVariables('${env:VENV}/bin/python', context), '/venvs/a/bin/python');
    assert.equal(expandVariables('/usr/bin/python3', context), '/usr/bin/python3');
    assert.equal(expandVariables('~user/python', context), '~user/python');
  });
  it('reports a missing value', () => {
    assert.equal(expandVariables('${env:NOPE}/python', context), undefined);
    assert.equal(expandVariables('~/x', { workspaceFolder: undefined, home: undefined }), undefined);
  });
});

describe('commands', () => {
  it('runs the server as a module and probes the import first', () => {
    assert.deepEqual(serverCommand('/v/bin/python'), { command: '/v/bin/python', args: ['-m', 'ptols'] });
    assert.deepEqual(probeCommand('/v/bin/python'), { command: '/v/bin/python', args: ['-c', PROBE_SCRIPT] });
    assert.match(PROBE_SCRIPT, /^import json, sys\nif sys.version_info < \(3, 11\): sys.exit\(/);
    assert.match(PROBE_SCRIPT, /\nimport ptoc, ptols\n/);
  });
  it('quotes paths for the shell only when needed', () => {
    assert.equal(shellQuote('/usr/bin/python3'), '/usr/bin/python3');
    assert.equal(shellQuote('/opt/my env/python'), "'/opt/my env/python'");
    assert.equal(shellQuote("/it's/python"), "'/it'\\''s/python'");
  });
});

describe('judgeProbe', () => {
  const answer = '{"python": "3.12.3", "executable": "/usr/bin/python3.12", "ptoc": "0.1.0", "location": "/x/ptoc/__init__.py"}\n';
  it('accepts a clean import and keeps what the probe said', () => {
    const verdict = judgeProbe('python3', { exitCode: 0, stdout: answer, stderr: '' });
    assert.equal(verdict.ok, true);
    assert.deepEqual(verdict.info, {
      python: '3.12.3',
      executable: '/usr/bin/python3.12',
      ptoc: '0.1.0',
      location: '/x/ptoc/__init__.py',
    });
  });
  it('passes over a program that exits 0 without the answer', () => {
    const verdict = judgeProbe('/bin/true', { exitCode: 0, stdout: '', stderr: '' });
    assert.equal(verdict.ok, false);
    assert.equal(verdict.tryNext, true);
    assert.equal(parseProbeOutput('{"python": 3}'), undefined);
    assert.equal(parseProbeOutput('noise\n' + answer)?.ptoc, '0.1.0');
  });
  it('names the install command when ptols is missing', () => {
    const verdict = judgeProbe('/usr/bin/python3', {
      exitCode: 1,
      stderr: "Traceback (most recent call last):\n  File \"<string>\", line 1\nModuleNotFoundError: No module named 'ptols'\n",
    });
    assert.equal(verdict.ok, false);
    assert.equal(
      verdict.message,
      'ptoc is not installed in /usr/bin/python3: run `/usr/bin/python3 -m pip install ptoc` (or set "ptoc.importStrategy" to "useBundled", or "ptoc.python" to an interpreter that has it).',
    );
    assert.equal(verdict.fixCommand, '/usr/bin/python3 -m pip install ptoc');
    assert.equal(verdict.reason, 'ptoc is not installed');
    assert.equal(verdict.tryNext, undefined);
  });
  it('treats a missing dependency of ptols the same way', () => {
    const verdict = judgeProbe('py', { exitCode: 1, stderr: "ModuleNotFoundError: No module named 'pygls'" });
    assert.equal(verdict.fixCommand, 'py -m pip install ptoc');
  });
  it('explains a missing interpreter', () => {
    const verdict = judgeProbe('/nope/python', { errorCode: 'ENOENT', exitCode: null, stderr: '' });
    assert.equal(verdict.ok, false);
    assert.equal(
      verdict.message,
      'The Python interpreter /nope/python was not found: set "ptoc.python" to a Python 3.11+ interpreter.',
    );
    assert.equal(verdict.fixCommand, undefined);
    assert.equal(verdict.tryNext, true);
  });
  it('explains an old Python', () => {
    const verdict = judgeProbe('python3.8', { exitCode: 1, stderr: '  File "x.py", line 3\n    match x:\nSyntaxError: invalid syntax' });
    assert.equal(verdict.reason, 'Python too old');
    const told = judgeProbe('python3', { exitCode: 1, stderr: 'ptoc needs Python 3.11 or newer; this is Python 3.10.12\n' });
    assert.equal(told.reason, 'Python too old');
    assert.equal(told.tryNext, true);
  });
  it('quotes the last line of any other failure', () => {
    const verdict = judgeProbe('python3', { exitCode: 1, stderr: 'Traceback...\nRuntimeError: boom\n' });
    assert.equal(verdict.message, '`python3 -c "import ptols"` failed: RuntimeError: boom. See the PyPTO log.');
    const silent = judgeProbe('python3', { exitCode: 3, stderr: '' });
    assert.equal(silent.message, '`python3 -c "import ptols"` failed with exit code 3. See the PyPTO log.');
    const timeout = judgeProbe('python3', { errorCode: 'ETIMEDOUT', exitCode: null, stderr: '' });
    assert.equal(timeout.reason, 'ETIMEDOUT');
  });
});
