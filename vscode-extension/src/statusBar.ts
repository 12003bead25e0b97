/** The status bar item: shown next to PyPTO editors and previews only; click shows the log. */
import * as vscode from 'vscode';
import { describeStatus, INITIAL_STATUS, nextStatus, type StatusEvent, type StatusState } from './logic/status';

export const SHOW_LOG_COMMAND = 'ptoc.showLog';

export class StatusBar implements vscode.Disposable {
  private state: StatusState = INITIAL_STATUS;
  private relevant = false;
  private activeUri: string | undefined;
  private readonly item: vscode.StatusBarItem;

  constructor() {
    this.item = vscode.window.createStatusBarItem('ptoc.status', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'PyPTO Language Server';
    this.item.command = SHOW_LOG_COMMAND;
    this.render();
  }

  get current(): StatusState {
    return this.state;
  }

  apply(event: StatusEvent): void {
    this.state = nextStatus(this.state, event);
    this.render();
  }

  /** Whether the active editor is one the extension serves (a PyPTO file or a preview), and
   *  its document (whose language edition the item shows). */
  setRelevant(relevant: boolean, activeUri?: string): void {
    this.relevant = relevant;
    this.activeUri = activeUri;
    this.render();
  }

  private render(): void {
    const view = describeStatus(this.state, this.activeUri);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.accessibilityInformation = { label: view.label };
    this.item.backgroundColor = view.isError ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    if (this.relevant) {
      this.item.show();
    } else {
      this.item.hide();
    }
  }

  dispose(): void {
    this.item.dispose();
  }
}
