/**
 * What the function and pass pickers offer. Items are plain data; the extension turns them
 * into QuickPickItems.
 */
import type { FunctionEntry, PassesResult, PreviewTarget } from './protocol';

export interface Choice<T> {
  label: string;
  description?: string;
  detail?: string;
  /** Shown as a separator before this item. */
  group?: string;
  value: T;
}

/** `undefined` value = the whole file. */
export type FunctionChoice = Choice<string | undefined>;

export type FunctionDecision =
  | { kind: 'whole-file' }
  | { kind: 'pick'; choices: FunctionChoice[] };

/** No picker for zero or one function: the preview of the whole file is the same thing. */
export function decideFunction(functions: readonly FunctionEntry[]): FunctionDecision {
  const seen = new Set<string>();
  const unique = functions.filter((fn) => (seen.has(fn.name) ? false : (seen.add(fn.name), true)));
  if (unique.length <= 1) {
    return { kind: 'whole-file' };
  }
  const choices: FunctionChoice[] = [
    { label: '$(file-code) Whole file', description: `${unique.length} functions`, value: undefined },
  ];
  for (const fn of unique) {
    choices.push({
      label: `$(symbol-function) ${fn.name}`,
      ...(fn.program === null ? {} : { description: fn.program }),
      detail: `line ${fn.range.start.line + 1}`,
      value: fn.name,
    });
  }
  return { kind: 'pick', choices };
}

export type RunDecision =
  | { kind: 'none' }
  | { kind: 'one'; name: string }
  | { kind: 'pick'; choices: Choice<string>[] };

/** A run is always of one function: no "whole file" entry, and no question when there is one. */
export function decideRunFunction(functions: readonly FunctionEntry[], current?: string): RunDecision {
  const seen = new Set<string>();
  const unique = functions.filter((fn) => (seen.has(fn.name) ? false : (seen.add(fn.name), true)));
  if (unique.length === 0) {
    return { kind: 'none' };
  }
  if (unique.length === 1) {
    return { kind: 'one', name: unique[0].name };
  }
  const choices = unique.map((fn) => ({
    label: `$(symbol-function) ${fn.name}`,
    ...(fn.program === null ? {} : { description: fn.program }),
    detail: `line ${fn.range.start.line + 1}`,
    value: fn.name,
  }));
  return { kind: 'pick', choices: choices.sort((a, b) => Number(b.value === current) - Number(a.value === current)) };
}

/** When a preview follows another editor, keep its function if the new file has one by that name. */
export function followFunction(previous: string | undefined, functions: readonly FunctionEntry[]): string | undefined {
  if (previous === undefined) {
    return undefined;
  }
  return functions.some((fn) => fn.name === previous) ? previous : undefined;
}

export type PassChoice = Choice<PreviewTarget>;

/**
 * The configured pipeline's passes in order, after "IR as written"; passes the pipeline does
 * not run follow under their own heading (the server can still show them).
 */
export function passChoices(passes: PassesResult, pipeline: string): PassChoice[] {
  const describe = new Map(passes.passes.map((pass) => [pass.name, pass.description]));
  const order = passes.pipelines[pipeline] ?? [];
  const choices: PassChoice[] = [
    { label: 'Source IR', description: 'before any pass', value: 'ir' },
  ];
  order.forEach((name, index) => {
    const detail = describe.get(name);
    choices.push({
      label: name,
      description: `${index + 1}/${order.length}`,
      ...(detail ? { detail } : {}),
      ...(index === 0 ? { group: `${pipeline} pipeline` } : {}),
      value: `pass:${name}`,
    });
  });
  const others = passes.passes.filter((pass) => !order.includes(pass.name));
  others.forEach((pass, index) => {
    choices.push({
      label: pass.name,
      ...(pass.description ? { detail: pass.description } : {}),
      ...(index === 0 ? { group: order.length > 0 ? `not in the ${pipeline} pipeline` : 'passes' } : {}),
      value: `pass:${pass.name}`,
    });
  });
  return choices;
}
