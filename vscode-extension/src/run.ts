/**
 * "Run": `ptols/run` runs one function on pto-isa's simulator and compares it with the reference
 * interpreter. The server reports progress on the token we pass; the verdict becomes a
 * notification and a section in the "PyPTO Run" output channel. (A failure also becomes a
 * diagnostic on the function: the server publishes that one.)
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { WorkDoneProgress } from 'vscode-languageclient/node';
import { Methods, parseRunResult, type RunParams } from './logic/protocol';
import { runReport, runVerdict } from './logic/runReport';
import { SpecialisationChoices } from './logic/specialisationChoice';
import { errorText, fileName } from './uriText';
import type { ServerController } from './server';

export class Runner implements vscode.Disposable {
  private channel: vscode.OutputChannel | undefined;
  private readonly running = new Set<string>();

  constructor(
    private readonly server: ServerController,
    private readonly log: vscode.LogOutputChannel,
    private readonly choices: SpecialisationChoices = new SpecialisationChoices(),
  ) {}

  private output(): vscode.OutputChannel {
    return (this.channel ??= vscode.window.createOutputChannel('PyPTO Run'));
  }

  async run(source: string, fn: string): Promise<void> {
    const key = `${source}#${fn}`;
    if (this.running.has(key)) {
      void vscode.window.showInformationMessage(`${fn} is already running.`);
      return;
    }
    this.running.add(key);
    try {
      await this.runWithProgress(source, fn);
    } finally {
      this.running.delete(key);
    }
  }

  private async runWithProgress(source: string, fn: string): Promise<void> {
    const title = `Running ${fn} on the simulator`;
    const outcome = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      async (progress, token) => {
        const client = await this.server.ready();
        if (client === undefined) {
          throw new Error('the PyPTO language server is not running');
        }
        const workDoneToken = randomUUID();
        const reports = client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
          if (value.kind !== 'end') {
            progress.report(value.message === undefined ? {} : { message: value.message });
          }
        });
        try {
          const params: RunParams = { textDocument: { uri: source }, function: fn, workDoneToken, ...this.choices.fields(source) };
          return await client.sendRequest(Methods.run, params, token);
        } finally {
          reports.dispose();
        }
      },
    ).then(
      (raw) => ({ raw }),
      (error: unknown) => ({ error }),
    );
    if ('error' in outcome) {
      const message = `Could not run ${fn}: ${errorText(outcome.error)}`;
      this.log.warn(message);
      void vscode.window.showErrorMessage(message);
      return;
    }
    const result = parseRunResult(outcome.raw);
    if (result === undefined) {
      void vscode.window.showErrorMessage(`Could not run ${fn}: the server sent an answer this extension does not understand.`);
      return;
    }
    const channel = this.output();
    channel.append(runReport(fn, fileName(source), result, new Date()));
    const verdict = runVerdict(fn, result);
    const show = 'Show Output';
    // Not awaited: the run is over even while its notification is still on screen.
    const shown = result.ok ? vscode.window.showInformationMessage(verdict, show) : vscode.window.showErrorMessage(verdict, show);
    void shown.then((choice) => {
      if (choice === show) {
        channel.show(true);
      }
    });
  }

  dispose(): void {
    this.channel?.dispose();
  }
}
