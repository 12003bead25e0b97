/**
 * A `vscode` stand-in that accepts anything (every member is a callable, constructible stub),
 * enough to load vscode-languageclient; `shownErrors` records what would have been notified.
 * Requiring this file first makes `require('vscode')` return it.
 */
import Module from 'node:module';

export const shownErrors: string[] = [];

function anything(path: string): unknown {
  const members = new Map<PropertyKey, unknown>();
  const target = function stub(): unknown {
    return anything(`${path}()`);
  };
  return new Proxy(target, {
    get(self, key) {
      if (Object.prototype.hasOwnProperty.call(self, key)) {
        return Reflect.get(self, key) as unknown; // prototype, and what a test set
      }
      if (key === 'then') {
        return undefined; // not a promise
      }
      if (!members.has(key)) {
        members.set(key, anything(`${path}.${String(key)}`));
      }
      return members.get(key);
    },
    construct() {
      return anything(`new ${path}`) as object;
    },
  });
}

const stub = anything('vscode') as { version: string; window: Record<string, unknown> };
stub.version = '1.139.0'; // the client checks the engine it runs in
stub.window.showErrorMessage = (message: string): Promise<undefined> => {
  shownErrors.push(message);
  return Promise.resolve(undefined);
};

type Loader = (request: string, parent: unknown, isMain: boolean) => unknown;
const loaderHost = Module as unknown as { _load: Loader };
const originalLoad = loaderHost._load;
loaderHost._load = function load(request: string, parent: unknown, isMain: boolean): unknown {
  return request === 'vscode' ? stub : originalLoad(request, parent, isMain);
};
