/**
 * A tiny stand-in for the `vscode` module, enough for the modules tested here. Requiring this
 * file first makes `require('vscode')` return the stub.
 */
import Module from 'node:module';

export class ThemeColor {
  constructor(readonly id: string) {}
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export class FakeStatusBarItem {
  text = '';
  tooltip: string | undefined;
  name: string | undefined;
  command: string | undefined;
  backgroundColor: ThemeColor | undefined;
  accessibilityInformation: { label: string } | undefined;
  visible = false;
  disposed = false;

  constructor(
    readonly id: string,
    readonly alignment: StatusBarAlignment,
    readonly priority: number,
  ) {}

  show(): void {
    this.visible = true;
  }

  hide(): void {
    this.visible = false;
  }

  dispose(): void {
    this.disposed = true;
  }
}

export const created: FakeStatusBarItem[] = [];

const stub = {
  ThemeColor,
  StatusBarAlignment,
  window: {
    createStatusBarItem(id: string, alignment: StatusBarAlignment, priority: number): FakeStatusBarItem {
      const item = new FakeStatusBarItem(id, alignment, priority);
      created.push(item);
      return item;
    },
  },
};

type Loader = (request: string, parent: unknown, isMain: boolean) => unknown;
const loaderHost = Module as unknown as { _load: Loader };
const originalLoad = loaderHost._load;
loaderHost._load = function load(request: string, parent: unknown, isMain: boolean): unknown {
  return request === 'vscode' ? stub : originalLoad(request, parent, isMain);
};
