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

/** A webview panel that keeps every page it is given, and lets a test post the page's messages. */
export class FakeWebviewPanel {
  readonly pages: string[] = [];
  private receive: (message: unknown) => void = () => undefined;
  readonly webview = {
    cspSource: 'vscode-webview:',
    asWebviewUri: (uri: { path: string }): { toString(): string } => ({ toString: () => `webview:${uri.path}` }),
    onDidReceiveMessage: (listener: (message: unknown) => void): { dispose(): void } => {
      this.receive = listener;
      return { dispose: () => undefined };
    },
  };

  constructor() {
    Object.defineProperty(this.webview, 'html', {
      get: (): string => this.pages.at(-1) ?? '',
      set: (page: string): void => void this.pages.push(page),
    });
  }

  /** What the page's script would post. */
  post(message: unknown): void {
    this.receive(message);
  }

  onDidDispose(): { dispose(): void } {
    return { dispose: () => undefined };
  }

  readonly reveal = (): void => undefined;

  readonly dispose = (): void => undefined;
}

export const panels: FakeWebviewPanel[] = [];

const stub = {
  ThemeColor,
  StatusBarAlignment,
  ViewColumn: { One: 1, Beside: -2 },
  Uri: {
    joinPath: (base: { path: string }, ...parts: string[]): { path: string } => ({ path: [base.path, ...parts].join('/') }),
  },
  window: {
    createWebviewPanel(): FakeWebviewPanel {
      const panel = new FakeWebviewPanel();
      panels.push(panel);
      return panel;
    },
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
