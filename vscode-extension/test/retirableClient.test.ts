import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shownErrors } from './anyVscodeStub';
// Imported after the stub, which replaces `vscode` for the client.
import { DocumentSymbolRequest } from 'vscode-languageclient/node';
import { RetirableClient } from '../src/server';

// The error vscode-languageclient raises for a request that meets the client's stop.
const stopped = (): Error => new Error('Starting server failed');

function client(): RetirableClient {
  return new RetirableClient('ptoc', 'PyPTO Language Server', { command: 'python3' }, {});
}

describe('RetirableClient (with a permissive vscode stub)', () => {
  it('reports a failed request while in service', () => {
    shownErrors.length = 0;
    assert.throws(() => client().handleFailedRequest(DocumentSymbolRequest.type, undefined, stopped(), null), /Starting server failed/);
    assert.deepEqual(shownErrors.length, 1);
  });

  it('answers a failed request with the default, quietly, once retired', () => {
    shownErrors.length = 0;
    const retired = client();
    retired.retired = true;
    assert.equal(retired.handleFailedRequest(DocumentSymbolRequest.type, undefined, stopped(), null), null);
    assert.deepEqual(shownErrors, []);
  });
});
