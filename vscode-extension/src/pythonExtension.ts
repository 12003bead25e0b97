/**
 * The interpreter selected in the Python extension (ms-python.python), through its public
 * `environments` API. Absent extension, missing API or a slow activation all mean "no answer".
 */
import * as vscode from 'vscode';

interface EnvironmentPath {
  readonly id: string;
  readonly path: string;
}

interface ResolvedEnvironment {
  readonly executable: { readonly uri: vscode.Uri | undefined };
}

interface PythonEnvironmentsApi {
  getActiveEnvironmentPath(resource?: vscode.Uri): EnvironmentPath;
  resolveEnvironment(environment: EnvironmentPath | string): Promise<ResolvedEnvironment | undefined>;
  readonly onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
}

interface PythonExtensionApi {
  readonly environments?: PythonEnvironmentsApi;
}

const PYTHON_EXTENSION_ID = 'ms-python.python';
const ACTIVATION_TIMEOUT_MS = 15_000;

function withTimeout<T>(promise: Thenable<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

async function environmentsApi(): Promise<PythonEnvironmentsApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi | undefined>(PYTHON_EXTENSION_ID);
  if (extension === undefined) {
    return undefined;
  }
  const api = extension.isActive
    ? extension.exports
    : await withTimeout(extension.activate(), ACTIVATION_TIMEOUT_MS, 'Activating the Python extension');
  return api?.environments;
}

export async function selectedPythonInterpreter(resource: vscode.Uri | undefined): Promise<string | undefined> {
  const environments = await environmentsApi();
  if (environments === undefined) {
    return undefined;
  }
  const active = environments.getActiveEnvironmentPath(resource);
  const resolved = await environments.resolveEnvironment(active);
  return resolved?.executable.uri?.fsPath ?? active.path;
}

/** Calls `listener` when the user selects another interpreter; a no-op without the extension. */
export function onSelectedInterpreterChanged(listener: () => void): vscode.Disposable {
  const extension = vscode.extensions.getExtension<PythonExtensionApi | undefined>(PYTHON_EXTENSION_ID);
  if (extension === undefined) {
    return new vscode.Disposable(() => undefined);
  }
  let subscription: vscode.Disposable | undefined;
  let disposed = false;
  void environmentsApi().then(
    (environments) => {
      if (environments !== undefined && !disposed) {
        subscription = environments.onDidChangeActiveEnvironmentPath(listener);
      }
    },
    () => undefined,
  );
  return new vscode.Disposable(() => {
    disposed = true;
    subscription?.dispose();
  });
}
