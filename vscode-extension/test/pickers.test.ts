import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideFunction, decideRunFunction, followFunction, passChoices } from '../src/logic/pickers';
import type { FunctionEntry, PassesResult } from '../src/logic/protocol';

function fn(name: string, line: number, program: string | null = 'Prog'): FunctionEntry {
  return { name, program, range: { start: { line, character: 4 }, end: { line: line + 3, character: 0 } } };
}

describe('function picker', () => {
  it('skips the picker for zero or one function', () => {
    assert.deepEqual(decideFunction([]), { kind: 'whole-file' });
    assert.deepEqual(decideFunction([fn('main', 3)]), { kind: 'whole-file' });
    assert.deepEqual(decideFunction([fn('main', 3), fn('main', 30, 'Other')]), { kind: 'whole-file' });
  });
  it('offers the whole file first, then each function with its program and line', () => {
    const decision = decideFunction([fn('add', 9), fn('compute', 19, null)]);
    assert.equal(decision.kind, 'pick');
    assert.deepEqual(decision.kind === 'pick' ? decision.choices : [], [
      { label: '$(file-code) Whole file', description: '2 functions', value: undefined },
      { label: '$(symbol-function) add', description: 'Prog', detail: 'line 10', value: 'add' },
      { label: '$(symbol-function) compute', detail: 'line 20', value: 'compute' },
    ]);
  });
  it('keeps a followed function only when the new file has it', () => {
    const functions = [fn('add', 1), fn('mul', 5)];
    assert.equal(followFunction('mul', functions), 'mul');
    assert.equal(followFunction('div', functions), undefined);
    assert.equal(followFunction(undefined, functions), undefined);
  });
});

describe('pass picker', () => {
  const passes: PassesResult = {
    passes: [
      { name: 'ConvertToSSA', description: 'Put the function in SSA form' },
      { name: 'InsertSync', description: 'Insert pipe synchronisation' },
      { name: 'Verify', description: '' },
    ],
    pipelines: { default: ['ConvertToSSA', 'InsertSync'], ptoas: ['ConvertToSSA'] },
  };
  it('lists the pipeline in order after the source IR, then the other passes', () => {
    assert.deepEqual(passChoices(passes, 'default'), [
      { label: 'Source IR', description: 'before any pass', value: 'ir' },
      { label: 'ConvertToSSA', description: '1/2', detail: 'Put the function in SSA form', group: 'default pipeline', value: 'pass:ConvertToSSA' },
      { label: 'InsertSync', description: '2/2', detail: 'Insert pipe synchronisation', value: 'pass:InsertSync' },
      { label: 'Verify', group: 'not in the default pipeline', value: 'pass:Verify' },
    ]);
  });
  it('follows the configured pipeline', () => {
    assert.deepEqual(
      passChoices(passes, 'ptoas').map((c) => c.value),
      ['ir', 'pass:ConvertToSSA', 'pass:InsertSync', 'pass:Verify'],
    );
  });
  it('lists every pass when the pipeline is unknown', () => {
    const choices = passChoices(passes, 'nightly');
    assert.deepEqual(choices.map((c) => c.value), ['ir', 'pass:ConvertToSSA', 'pass:InsertSync', 'pass:Verify']);
    assert.equal(choices[1]?.group, 'passes');
  });
  it('still offers the source IR with no passes at all', () => {
    assert.deepEqual(passChoices({ passes: [], pipelines: {} }, 'default'), [
      { label: 'Source IR', description: 'before any pass', value: 'ir' },
    ]);
  });
});

describe('decideRunFunction', () => {
  const at = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 5 } });
  it('runs the only function without asking, and says when there is none', () => {
    assert.deepEqual(decideRunFunction([]), { kind: 'none' });
    assert.deepEqual(decideRunFunction([{ name: 'k', program: null, range: at(2) }, { name: 'k', program: null, range: at(2) }]), {
      kind: 'one',
      name: 'k',
    });
  });
  it('offers every function, the current one first, and never the whole file', () => {
    const functions = [
      { name: 'a', program: 'P', range: at(3) },
      { name: 'b', program: null, range: at(9) },
    ];
    assert.deepEqual(decideRunFunction(functions, 'b'), {
      kind: 'pick',
      choices: [
        { label: '$(symbol-function) b', detail: 'line 10', value: 'b' },
        { label: '$(symbol-function) a', description: 'P', detail: 'line 4', value: 'a' },
      ],
    });
  });
});
