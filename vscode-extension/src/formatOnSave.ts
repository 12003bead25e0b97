/**
 * `ptoc.formatOnSave`: formats PyPTO files with the server's document formatting just before
 * they are saved, independently of `editor.formatOnSave` and of the default formatter chosen
 * for Python (so other Python files are left to their own formatter).
 */
import * as vscode from 'vscode';
import { DocumentFormattingRequest } from 'vscode-languageclient/node';
import { isPyptoDocument } from './logic/detect';
import type { ServerController } from './server';
import { readSettings } from './server';

/** VS Code gives will-save participants a short budget; give up well inside it. */
const FORMAT_TIMEOUT_MS = 1_500;

function formattingOptions(document: vscode.TextDocument): vscode.FormattingOptions {
  const editor = vscode.window.visibleTextEditors.find((e) => e.document === document);
  const tabSize = typeof editor?.options.tabSize === 'number' ? editor.options.tabSize : 4;
  const insertSpaces = typeof editor?.options.insertSpaces === 'boolean' ? editor.options.insertSpaces : true;
  return { tabSize, insertSpaces };
}

async function formatEdits(
  server: ServerController,
  document: vscode.TextDocument,
  log: vscode.LogOutputChannel,
): Promise<vscode.TextEdit[]> {
  const client = server.languageClient;
  if (client === undefined || !server.running) {
    return [];
  }
  const cancel = new vscode.CancellationTokenSource();
  const timer = setTimeout(() => cancel.cancel(), FORMAT_TIMEOUT_MS);
  try {
    const edits = await client.sendRequest(
      DocumentFormattingRequest.type,
      {
        textDocument: client.code2ProtocolConverter.asTextDocumentIdentifier(document),
        options: formattingOptions(document),
      },
      cancel.token,
    );
    return edits ? await client.protocol2CodeConverter.asTextEdits(edits) : [];
  } catch (error) {
    log.warn(`Format on save skipped for ${document.uri.fsPath}: ${String(error)}`);
    return [];
  } finally {
    clearTimeout(timer);
    cancel.dispose();
  }
}

export function registerFormatOnSave(server: ServerController, log: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.workspace.onWillSaveTextDocument((event) => {
    // Like editor.formatOnSave: auto-save after a delay does not reformat under the cursor.
    if (event.reason === vscode.TextDocumentSaveReason.AfterDelay) {
      return;
    }
    if (!readSettings(event.document.uri).settings.formatOnSave || !isPyptoDocument(event.document)) {
      return;
    }
    event.waitUntil(formatEdits(server, event.document, log));
  });
}
