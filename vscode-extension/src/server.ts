/**
 * Owns the ptols process: chooses the interpreter, checks that ptols imports before starting
 * it (so the user gets "ptoc is not installed in X: run ..." instead of a crash loop), starts
 * and restarts the language client, and turns its life cycle into status events.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  State,
  TransportKind,
  vsdiag,
  type CancellationToken,
  type ErrorHandler,
  type LanguageClientOptions,
  type MessageSignature,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { describeSource, probeCommand, resolveInterpreters, serverCommand, type Interpreter, type ProbeOutcome } from './logic/interpreter';
import { chooseInterpreter, describeServer, effectiveStrategy, serverEnvironment, type Environment } from './logic/launch';
import { Methods, parsePreviewChanged, parseStatus, type PreviewChangedParams } from './logic/protocol';
import { configurationFor, SECTION, toServerSettings, type ServerSettings } from './logic/settings';
import type { StatusEvent } from './logic/status';
import { selectedPythonInterpreter } from './pythonExtension';
import { createTraceChannel } from './traceChannel';

const CLIENT_ID = 'ptoc'; // the client reads `ptoc.trace.server` because of this id
const CLIENT_NAME = 'PyPTO Language Server';
const PROBE_TIMEOUT_MS = 30_000;
/** Crashes tolerated within CRASH_WINDOW_MS before the client gives up restarting. */
const MAX_CRASHES = 4;
const CRASH_WINDOW_MS = 3 * 60_000;

export function readSettings(resource?: vscode.Uri): { settings: ServerSettings; problems: string[] } {
  return toServerSettings(vscode.workspace.getConfiguration(undefined, resource).get(SECTION));
}

function runProbe(python: string, env: Environment): Promise<ProbeOutcome> {
  const { command, args } = probeCommand(python);
  return new Promise((resolve) => {
    execFile(command, args, { timeout: PROBE_TIMEOUT_MS, windowsHide: true, env }, (error, stdout, stderr) => {
      if (error === null) {
        resolve({ exitCode: 0, stdout, stderr });
        return;
      }
      const code = (error as NodeJS.ErrnoException).code;
      if (typeof code === 'string') {
        resolve({ errorCode: code, exitCode: null, stderr });
      } else if (error.killed) {
        resolve({ errorCode: 'ETIMEDOUT', exitCode: null, stderr });
      } else {
        resolve({ exitCode: typeof code === 'number' ? code : 1, stderr });
      }
    });
  });
}

/** Restarts a crashed server a few times, then stops and says so (the status bar turns red). */
class CrashHandler implements ErrorHandler {
  private crashes: number[] = [];

  constructor(private readonly log: vscode.LogOutputChannel) {}

  error(): { action: ErrorAction } {
    return { action: ErrorAction.Continue };
  }

  closed(): { action: CloseAction; message?: string; handled?: boolean } {
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < CRASH_WINDOW_MS), now];
    if (this.crashes.length > MAX_CRASHES) {
      this.log.error(`ptols stopped ${this.crashes.length} times in 3 minutes; not restarting it.`);
      return {
        action: CloseAction.DoNotRestart,
        message: 'The PyPTO language server keeps stopping; see "PyPTO: Show Log", then run "PyPTO: Restart Language Server".',
      };
    }
    this.log.warn('ptols stopped unexpectedly; restarting it.');
    return { action: CloseAction.Restart, handled: true };
  }
}

/**
 * A client that, once retired (stopped or replaced on purpose), answers VS Code's last requests
 * with nothing instead of an error notification. A request that came just before the stop
 * otherwise fails inside the client ("Starting server failed": its connection is gone) and
 * shows "Request textDocument/documentSymbol failed" on every restart that meets one. The new
 * client is asked again.
 */
export class RetirableClient extends LanguageClient {
  retired = false;

  override handleFailedRequest<T>(
    type: MessageSignature,
    token: CancellationToken | undefined,
    error: unknown,
    defaultValue: T,
    showNotification?: boolean,
    throwOnCancel?: boolean,
  ): T {
    if (this.retired) {
      return defaultValue;
    }
    return super.handleFailedRequest(type, token, error, defaultValue, showNotification, throwOnCancel);
  }
}

export class ServerController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  /** Start and stop run one at a time, in the order asked. */
  private queue: Promise<void> = Promise.resolve();
  private stopping = false;
  private wantedRunning = false;
  /** Marks the current client as on its way out, so it sends nothing more (see createClient). */
  private retireClient: () => void = () => undefined;
  private readonly statusEmitter = new vscode.EventEmitter<StatusEvent>();
  private readonly previewChangedEmitter = new vscode.EventEmitter<PreviewChangedParams>();
  private readonly runningEmitter = new vscode.EventEmitter<void>();

  readonly onStatus = this.statusEmitter.event;
  readonly onPreviewChanged = this.previewChangedEmitter.event;
  /** Fires each time a server becomes usable (first start and every restart). */
  readonly onRunning = this.runningEmitter.event;

  /** Created on first use: most sessions never trace. */
  private traceChannel: vscode.LogOutputChannel | undefined;
  /** Which ptoc runs, on which Python (for the status item's tooltip). */
  private serverDescription: string | undefined;

  /** `bundledLibs`: the ptoc, ptols and pure-Python dependencies packed into the extension. */
  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly bundledLibs: string,
  ) {}

  /** Whether a server was asked for (start or restart), even if it failed to come up. */
  get wanted(): boolean {
    return this.wantedRunning;
  }

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  get languageClient(): LanguageClient | undefined {
    return this.client;
  }

  start(): Promise<void> {
    this.wantedRunning = true;
    return this.enqueue(() => this.doStart());
  }

  stop(): Promise<void> {
    this.wantedRunning = false;
    this.retireClient();
    return this.enqueue(() => this.doStop());
  }

  /** Call synchronously from the event that causes it, so the old client ignores that event. */
  restart(): Promise<void> {
    this.wantedRunning = true;
    this.retireClient();
    return this.enqueue(async () => {
      await this.doStop();
      await this.doStart();
    });
  }

  /** Waits for a running server (starting one if needed); undefined when it cannot run. */
  async ready(): Promise<LanguageClient | undefined> {
    // Once asked for, a failed server is not retried behind the user's back (one error message).
    if (!this.wantedRunning) {
      await this.start();
    } else {
      await this.queue;
    }
    return this.running ? this.client : undefined;
  }

  async request(method: string, params: unknown, token?: vscode.CancellationToken): Promise<unknown> {
    const client = await this.ready();
    if (client === undefined) {
      throw new Error('the PyPTO language server is not running');
    }
    return token === undefined ? client.sendRequest(method, params) : client.sendRequest(method, params, token);
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const next = this.queue.then(task, task);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private candidates(resource: vscode.Uri | undefined): Promise<Interpreter[]> {
    const folder = (resource && vscode.workspace.getWorkspaceFolder(resource)) ?? vscode.workspace.workspaceFolders?.[0];
    return resolveInterpreters({
      configured: readSettings(resource).settings.python,
      pythonExtension: () => selectedPythonInterpreter(resource),
      workspaceFolder: folder?.uri.fsPath,
      home: os.homedir(),
      log: (message) => this.log.warn(message),
    });
  }

  private async doStart(): Promise<void> {
    if (this.client !== undefined) {
      return;
    }
    this.statusEmitter.fire({ kind: 'starting' });
    const resource = vscode.window.activeTextEditor?.document.uri;
    const wanted = readSettings(resource).settings.importStrategy;
    const strategy = effectiveStrategy(wanted, existsSync(join(this.bundledLibs, 'ptols')));
    if (strategy !== wanted) {
      this.log.warn(`No bundled ptoc in ${this.bundledLibs} (a development build?): using the interpreter's own`);
    }
    const env = serverEnvironment(strategy, this.bundledLibs, process.env);
    const choice = await chooseInterpreter(
      await this.candidates(resource),
      (python) => runProbe(python, env),
      (skipped) => this.log.info(`Skipping ${skipped}`),
    );
    this.log.info(`Python: ${choice.interpreter.path} (${describeSource(choice.interpreter)}; ptoc.importStrategy ${strategy})`);
    if (!choice.ok) {
      this.log.error(choice.verdict.message);
      this.statusEmitter.fire({ kind: 'failed', detail: choice.verdict.reason });
      void this.explainFailure(choice.verdict.message, choice.verdict.fixCommand);
      return;
    }
    this.serverDescription = describeServer(choice.info, strategy);
    this.log.info(this.serverDescription);

    const client = this.createClient(choice.interpreter, env);
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log.error(`ptols did not start: ${message}`);
      this.statusEmitter.fire({ kind: 'failed', detail: 'did not start' });
      void this.explainFailure(`The PyPTO language server did not start with ${choice.interpreter.path}: ${message}`);
    }
  }

  private createClient(interpreter: Interpreter, env: Environment): LanguageClient {
    const { command, args } = serverCommand(interpreter.path);
    const serverOptions: ServerOptions = {
      command,
      args,
      transport: TransportKind.stdio,
      options: { env },
    };
    // A client being replaced must not push the very configuration change that replaces it:
    // the send would race with its stop and surface as an error.
    let retired = false;
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file', language: 'python' }],
      // Deprecated in favour of the pull model, which the middleware below also serves; the push
      // keeps servers that only listen to didChangeConfiguration informed.
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      synchronize: { configurationSection: SECTION },
      initializationOptions: readSettings().settings,
      outputChannel: this.log,
      traceOutputChannel: (this.traceChannel ??= createTraceChannel()),
      errorHandler: new CrashHandler(this.log),
      middleware: {
        // Open documents get the pushed diagnostics, published as each analysis ends; pulling
        // them too would list every problem twice. The workspace pull (files not open) stays.
        provideDiagnostics: () => ({ kind: vsdiag.DocumentDiagnosticReportKind.full, items: [] }),
        workspace: {
          didChangeConfiguration: (sections, next) => (retired ? Promise.resolve() : next(sections)),
          // Answer `workspace/configuration` for `ptoc` with the checked, defaulted settings.
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            if (!Array.isArray(answers)) {
              return answers;
            }
            return params.items.map((item, index) => {
              const resource = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
              const ours = configurationFor(item.section, readSettings(resource).settings);
              return ours === undefined ? (answers[index] as unknown) : ours;
            });
          },
        },
      },
    };
    const client = new RetirableClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
    this.retireClient = () => {
      retired = true;
      client.retired = true;
    };
    client.onDidChangeState((event) => {
      if (event.newState === State.Starting) {
        this.statusEmitter.fire({ kind: 'starting' });
      } else if (event.newState === State.Running) {
        this.log.info(`ptols is running (${command} ${args.join(' ')} --stdio)`);
        this.statusEmitter.fire({ kind: 'running', ...(this.serverDescription === undefined ? {} : { server: this.serverDescription }) });
        this.runningEmitter.fire();
      } else if (this.stopping) {
        this.statusEmitter.fire({ kind: 'stopped' });
      } else {
        this.statusEmitter.fire({ kind: 'failed', detail: 'the server stopped' });
      }
    });
    client.onNotification(Methods.status, (params: unknown) => {
      const status = parseStatus(params);
      if (status !== undefined) {
        this.statusEmitter.fire({
          kind: 'analysis',
          state: status.state,
          ...(status.uri === undefined ? {} : { uri: status.uri }),
          ...(status.edition === undefined ? {} : { edition: status.edition }),
        });
      }
    });
    client.onNotification(Methods.previewChanged, (params: unknown) => {
      const changed = parsePreviewChanged(params);
      if (changed !== undefined) {
        this.previewChangedEmitter.fire(changed);
      }
    });
    return client;
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client === undefined) {
      this.statusEmitter.fire({ kind: 'stopped' });
      return;
    }
    this.stopping = true;
    try {
      if (client.needsStop()) {
        await client.stop(5_000);
      }
    } catch (error) {
      this.log.warn(`Stopping ptols: ${String(error)}`);
    } finally {
      this.stopping = false;
      await client.dispose().catch(() => undefined);
      this.statusEmitter.fire({ kind: 'stopped' });
    }
  }

  private async explainFailure(message: string, fixCommand?: string): Promise<void> {
    const copy = 'Copy Command';
    const settings = 'Open Settings';
    const log = 'Show Log';
    const actions = fixCommand === undefined ? [settings, log] : [copy, settings, log];
    const choice = await vscode.window.showErrorMessage(message, ...actions);
    if (choice === copy && fixCommand !== undefined) {
      await vscode.env.clipboard.writeText(fixCommand);
    } else if (choice === settings) {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'ptoc.python');
    } else if (choice === log) {
      this.log.show(true);
    }
  }

  dispose(): void {
    void this.stop();
    this.statusEmitter.dispose();
    this.previewChangedEmitter.dispose();
    this.runningEmitter.dispose();
    this.traceChannel?.dispose();
  }
}
