import assert from 'node:assert/strict';
import { delimiter } from 'node:path';
import { describe, it } from 'node:test';
import type { Interpreter, ProbeOutcome } from '../src/logic/interpreter';
import { chooseInterpreter, describeServer, effectiveStrategy, serverEnvironment } from '../src/logic/launch';

const info = { python: '3.12.3', executable: '/usr/bin/python3.12', ptoc: '0.1.0', location: '/ext/bundled/libs/ptoc/__init__.py' };
const ready: ProbeOutcome = { exitCode: 0, stdout: JSON.stringify(info), stderr: '' };
const missing: ProbeOutcome = { errorCode: 'ENOENT', exitCode: null, stderr: '' };
const tooOld: ProbeOutcome = { exitCode: 1, stderr: 'ptoc needs Python 3.11 or newer; this is Python 3.10.12' };
const noPtoc: ProbeOutcome = { exitCode: 1, stderr: "ModuleNotFoundError: No module named 'ptoc'" };

function fromPath(...paths: string[]): Interpreter[] {
  return paths.map((path) => ({ path, source: 'default' }));
}

function prober(outcomes: Record<string, ProbeOutcome>): { probe: (python: string) => Promise<ProbeOutcome>; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    probe: (python) => {
      asked.push(python);
      return Promise.resolve(outcomes[python] ?? missing);
    },
  };
}

describe('serverEnvironment', () => {
  it('puts the bundle first on PYTHONPATH for useBundled, before what the user had', () => {
    assert.equal(serverEnvironment('useBundled', '/ext/bundled/libs', {}).PYTHONPATH, '/ext/bundled/libs');
    const env = serverEnvironment('useBundled', '/ext/bundled/libs', { PYTHONPATH: '/mine', HOME: '/h' });
    assert.equal(env.PYTHONPATH, `/ext/bundled/libs${delimiter}/mine`);
    assert.equal(env.HOME, '/h');
    assert.equal(env.PYTHONUNBUFFERED, '1');
  });
  it('leaves PYTHONPATH alone for fromEnvironment', () => {
    assert.equal(serverEnvironment('fromEnvironment', '/ext/bundled/libs', {}).PYTHONPATH, undefined);
    assert.equal(serverEnvironment('fromEnvironment', '/ext/bundled/libs', { PYTHONPATH: '/mine' }).PYTHONPATH, '/mine');
  });
  it('uses the environment when the extension has no bundle', () => {
    assert.equal(effectiveStrategy('useBundled', false), 'fromEnvironment');
    assert.equal(effectiveStrategy('useBundled', true), 'useBundled');
    assert.equal(effectiveStrategy('fromEnvironment', true), 'fromEnvironment');
  });
});

describe('describeServer', () => {
  it('names the version, the origin and the Python', () => {
    assert.equal(describeServer(info, 'useBundled'), 'ptoc 0.1.0 bundled with the extension, on Python 3.12.3 (/usr/bin/python3.12)');
    assert.equal(
      describeServer({ ...info, location: '/venv/lib/python3.12/site-packages/ptoc/__init__.py' }, 'fromEnvironment'),
      'ptoc 0.1.0 from the environment (/venv/lib/python3.12/site-packages/ptoc/__init__.py), on Python 3.12.3 (/usr/bin/python3.12)',
    );
  });
});

describe('chooseInterpreter', () => {
  it('takes the first candidate that is there and new enough', async () => {
    const { probe, asked } = prober({ python3: tooOld, 'python3.12': ready, 'python3.11': ready });
    const logged: string[] = [];
    const choice = await chooseInterpreter(fromPath('python3', 'python3.13', 'python3.12', 'python3.11'), probe, (m) => logged.push(m));
    assert.deepEqual(choice, { ok: true, interpreter: { path: 'python3.12', source: 'default' }, info });
    assert.deepEqual(asked, ['python3', 'python3.13', 'python3.12']);
    assert.deepEqual(logged, ['python3: Python too old', 'python3.13: interpreter not found']);
  });
  it('stops at an interpreter that runs but cannot import ptoc, with its fix', async () => {
    const { probe, asked } = prober({ python3: noPtoc, 'python3.12': ready });
    const choice = await chooseInterpreter(fromPath('python3', 'python3.12'), probe);
    assert.equal(choice.ok, false);
    assert.deepEqual(asked, ['python3']);
    assert.equal(choice.ok ? undefined : choice.verdict.fixCommand, 'python3 -m pip install ptoc');
  });
  it('reports the one interpreter of the setting as it is', async () => {
    const { probe } = prober({});
    const choice = await chooseInterpreter([{ path: '/nope/python', source: 'setting' }], probe);
    assert.equal(choice.ok ? undefined : choice.verdict.reason, 'interpreter not found');
  });
  it('names every interpreter tried when none will do', async () => {
    const { probe } = prober({ python3: tooOld });
    const choice = await chooseInterpreter(fromPath('python3', 'python'), probe);
    assert.equal(
      choice.ok ? undefined : choice.verdict.message,
      'No Python 3.11 or newer was found (tried python3 (Python too old), python (interpreter not found)): install one, or set "ptoc.python" to it.',
    );
  });
});
