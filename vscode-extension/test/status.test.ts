import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeStatus, INITIAL_STATUS, nextStatus, type StatusEvent, type StatusState } from '../src/logic/status';

function run(events: StatusEvent[], from: StatusState = INITIAL_STATUS): StatusState {
  return events.reduce(nextStatus, from);
}

describe('status state machine', () => {
  it('goes stopped -> starting -> ready', () => {
    assert.equal(INITIAL_STATUS.phase, 'stopped');
    assert.equal(run([{ kind: 'starting' }]).phase, 'starting');
    assert.equal(run([{ kind: 'starting' }, { kind: 'running' }]).phase, 'ready');
  });

  it('is analysing while any document is pending', () => {
    const a = 'file:///a.py';
    const b = 'file:///b.py';
    let state = run([{ kind: 'starting' }, { kind: 'running' }]);
    state = nextStatus(state, { kind: 'analysis', state: 'analysing', uri: a });
    state = nextStatus(state, { kind: 'analysis', state: 'analysing', uri: b });
    assert.equal(state.phase, 'analysing');
    state = nextStatus(state, { kind: 'analysis', state: 'ready', uri: a });
    assert.equal(state.phase, 'analysing');
    assert.deepEqual([...state.pending], [b]);
    state = nextStatus(state, { kind: 'analysis', state: 'ready', uri: b });
    assert.equal(state.phase, 'ready');
    assert.equal(state.pending.size, 0);
  });

  it('treats a notification without uri as workspace-wide', () => {
    let state = run([{ kind: 'running' }, { kind: 'analysis', state: 'analysing' }]);
    assert.equal(state.phase, 'analysing');
    state = nextStatus(state, { kind: 'analysis', state: 'analysing', uri: 'file:///a.py' });
    state = nextStatus(state, { kind: 'analysis', state: 'ready' });
    assert.equal(state.phase, 'ready', 'a ready without uri clears everything');
  });

  it('ignores a ready for a document that was never pending', () => {
    const state = run([{ kind: 'running' }, { kind: 'analysis', state: 'ready', uri: 'file:///x.py' }]);
    assert.equal(state.phase, 'ready');
  });

  it('ignores progress while not running', () => {
    assert.equal(run([{ kind: 'starting' }, { kind: 'analysis', state: 'analysing', uri: 'u' }]).phase, 'starting');
    assert.equal(run([{ kind: 'analysis', state: 'analysing', uri: 'u' }]).phase, 'stopped');
  });

  it('keeps a failure until the next start', () => {
    let state = run([{ kind: 'starting' }, { kind: 'failed', detail: 'ptoc is not installed' }]);
    assert.equal(state.phase, 'failed');
    assert.equal(state.detail, 'ptoc is not installed');
    state = run([{ kind: 'running' }, { kind: 'stopped' }, { kind: 'analysis', state: 'analysing', uri: 'u' }], state);
    assert.equal(state.phase, 'failed');
    state = run([{ kind: 'starting' }, { kind: 'running' }], state);
    assert.equal(state.phase, 'ready');
    assert.equal(state.detail, undefined);
  });

  it('a stop clears pending work', () => {
    const state = run([{ kind: 'running' }, { kind: 'analysis', state: 'analysing', uri: 'u' }, { kind: 'stopped' }]);
    assert.equal(state.phase, 'stopped');
    assert.equal(state.pending.size, 0);
  });
});

describe('status presentation', () => {
  it('has one look per phase, red only when failed', () => {
    const views = (['stopped', 'starting', 'ready', 'analysing', 'failed'] as const).map((phase) =>
      describeStatus({ phase, pending: new Set(), ...(phase === 'failed' ? { detail: 'boom' } : {}) }),
    );
    assert.deepEqual(
      views.map((v) => [v.text, v.isError]),
      [
        ['$(circle-slash) PyPTO', false],
        ['$(loading~spin) PyPTO', false],
        ['$(check) PyPTO', false],
        ['$(sync~spin) PyPTO', false],
        ['$(error) PyPTO', true],
      ],
    );
    assert.equal(views[4]?.tooltip, 'PyPTO language server: failed (boom). Click to show the PyPTO log.');
    assert.deepEqual(
      views.map((v) => v.label),
      [
        'PyPTO language server: stopped',
        'PyPTO language server: starting',
        'PyPTO language server: ready',
        'PyPTO language server: analysing',
        'PyPTO language server: failed (boom)',
      ],
    );
    assert.equal(views[2]?.tooltip, 'PyPTO language server: ready. Click to show the PyPTO log.');
  });

  it('names the running ptoc in the tooltip while it runs, through analyses, not after a failure', () => {
    const server = 'ptoc 0.1.0 bundled with the extension, on Python 3.12.3 (/usr/bin/python3)';
    let state = nextStatus(nextStatus(INITIAL_STATUS, { kind: 'starting' }), { kind: 'running', server });
    assert.equal(
      describeStatus(state).tooltip,
      `PyPTO language server: ready. ${server}. Click to show the PyPTO log.`,
    );
    state = nextStatus(state, { kind: 'analysis', state: 'analysing', uri: 'file:///k.py' });
    assert.equal(describeStatus(state).tooltip, `PyPTO language server: analysing. ${server}. Click to show the PyPTO log.`);
    state = nextStatus(state, { kind: 'failed', detail: 'the server stopped' });
    assert.equal(describeStatus(state).tooltip, 'PyPTO language server: failed (the server stopped). Click to show the PyPTO log.');
  });
});

describe('the language edition in the status item', () => {
  const uri = 'file:///k/today.py';
  const ready = (edition?: string): StatusEvent => ({ kind: 'analysis', state: 'ready', uri, ...(edition === undefined ? {} : { edition }) });

  it('shows the active document edition the server reported, and why in the tooltip', () => {
    const state = [{ kind: 'running' } as StatusEvent, ready('PyPTO 2026-08 (detected from its spellings)')].reduce(nextStatus, INITIAL_STATUS);
    const view = describeStatus(state, uri);
    assert.equal(view.text, '$(check) PyPTO 2026-08');
    assert.match(view.tooltip, /Edition: PyPTO 2026-08 \(detected from its spellings\)\./);
  });

  it('shows no edition for another document or before a report', () => {
    const state = [{ kind: 'running' } as StatusEvent, ready('PyPTO 2026-03 (set by [tool.ptoc] edition)')].reduce(nextStatus, INITIAL_STATUS);
    assert.equal(describeStatus(state, 'file:///k/other.py').text, '$(check) PyPTO');
    assert.equal(describeStatus(nextStatus(INITIAL_STATUS, { kind: 'running' }), uri).text, '$(check) PyPTO');
  });
});
