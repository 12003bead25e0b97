/**
 * Where `ptoc.trace.server` sends the LSP traffic. vscode-languageclient 11 traces only while its
 * trace channel's log level is Trace, a level users can only set by hand; this channel reports
 * Trace whenever the setting is not "off", so the setting alone turns tracing on and off.
 */
import * as vscode from 'vscode';
import { SECTION, type TraceLevel } from './logic/settings';
import { readSettings } from './server';

export function traceLogLevel(setting: TraceLevel): vscode.LogLevel {
  return setting === 'off' ? vscode.LogLevel.Info : vscode.LogLevel.Trace;
}

export function createTraceChannel(): vscode.LogOutputChannel {
  const output = vscode.window.createOutputChannel('PyPTO Trace');
  const levelChanged = new vscode.EventEmitter<vscode.LogLevel>();
  const level = (): vscode.LogLevel => traceLogLevel(readSettings().settings.trace.server);
  const watcher = vscode.workspace.onDidChangeConfiguration((event) => {
    if (event.affectsConfiguration(`${SECTION}.trace.server`)) {
      levelChanged.fire(level());
    }
  });
  const line = (prefix: string) => (message: string | Error) => {
    output.appendLine(`${prefix}${message instanceof Error ? (message.stack ?? message.message) : message}`);
  };
  return {
    name: output.name,
    get logLevel() {
      return level();
    },
    onDidChangeLogLevel: levelChanged.event,
    trace: line(''),
    debug: line('[debug] '),
    info: line('[info] '),
    warn: line('[warn] '),
    error: line('[error] '),
    append: (value) => {
      output.append(value);
    },
    appendLine: (value) => {
      output.appendLine(value);
    },
    replace: (value) => {
      output.replace(value);
    },
    clear: () => {
      output.clear();
    },
    // The interface still lists the old two-argument overload; accept both shapes.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    show: (columnOrPreserveFocus?: vscode.ViewColumn | boolean, preserveFocus?: boolean) => {
      output.show(typeof columnOrPreserveFocus === 'boolean' ? columnOrPreserveFocus : preserveFocus);
    },
    hide: () => {
      output.hide();
    },
    dispose: () => {
      watcher.dispose();
      levelChanged.dispose();
      output.dispose();
    },
  };
}
