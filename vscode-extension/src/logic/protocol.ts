/**
 * The ptols protocol extensions (see README "Server protocol"), with light validation:
 * replies come from another process, so they are checked before the UI trusts them.
 */

export const Methods = {
  preview: 'ptols/preview',
  previewChanged: 'ptols/previewChanged',
  functions: 'ptols/functions',
  passes: 'ptols/passes',
  status: 'ptols/status',
  sourceMap: 'ptols/sourceMap',
  memoryMap: 'ptols/memoryMap',
  run: 'ptols/run',
} as const;

/** `cce` = C++ on pto-isa, `pto` = MLIR in the PTO dialect, `ir` = IR as written, `pass:X` = IR after pass X. */
export type PreviewTarget = 'cce' | 'pto' | 'pto-cpp' | 'ir' | `pass:${string}`;
export type PreviewLanguage = 'cpp' | 'mlir' | 'python';

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

export interface PreviewParams {
  textDocument: { uri: string };
  target: PreviewTarget;
  function?: string;
}

export interface PreviewDiagnostic {
  range: LspRange;
  severity: number;
  code?: string;
  message: string;
}

export interface PreviewResult {
  language: PreviewLanguage;
  content: string;
  version: number | null;
  diagnostics: PreviewDiagnostic[];
}

export interface FunctionEntry {
  name: string;
  program: string | null;
  range: LspRange;
}

export interface PassEntry {
  name: string;
  description: string;
}

export interface PassesResult {
  passes: PassEntry[];
  pipelines: Record<string, string[]>;
}

export interface StatusParams {
  state: 'analysing' | 'ready';
  uri?: string;
  /** With `ready`: the document's language edition and why, e.g. "PyPTO 2026-08 (detected from its spellings)". */
  edition?: string;
}

export interface PreviewChangedParams {
  uri: string;
  version: number | null;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPosition(value: unknown): value is LspPosition {
  return isObject(value) && typeof value.line === 'number' && typeof value.character === 'number';
}

export function isRange(value: unknown): value is LspRange {
  return isObject(value) && isPosition(value.start) && isPosition(value.end);
}

const ORIGIN: LspRange = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
const PREVIEW_LANGUAGES: readonly string[] = ['cpp', 'mlir', 'python'];

function parseDiagnostic(value: unknown): PreviewDiagnostic | undefined {
  if (!isObject(value) || typeof value.message !== 'string') {
    return undefined;
  }
  const code = typeof value.code === 'string' || typeof value.code === 'number' ? String(value.code) : undefined;
  return {
    range: isRange(value.range) ? value.range : ORIGIN,
    severity: typeof value.severity === 'number' ? value.severity : 1,
    ...(code === undefined ? {} : { code }),
    message: value.message,
  };
}

export function parsePreviewResult(value: unknown): PreviewResult | undefined {
  if (!isObject(value) || typeof value.content !== 'string') {
    return undefined;
  }
  const language = typeof value.language === 'string' && PREVIEW_LANGUAGES.includes(value.language)
    ? (value.language as PreviewLanguage)
    : 'python';
  const diagnostics = Array.isArray(value.diagnostics)
    ? value.diagnostics.map(parseDiagnostic).filter((d): d is PreviewDiagnostic => d !== undefined)
    : [];
  return {
    language,
    content: value.content,
    version: typeof value.version === 'number' ? value.version : null,
    diagnostics,
  };
}

export function parseFunctions(value: unknown): FunctionEntry[] {
  if (!isObject(value) || !Array.isArray(value.functions)) {
    return [];
  }
  const entries: FunctionEntry[] = [];
  for (const item of value.functions) {
    if (isObject(item) && typeof item.name === 'string') {
      entries.push({
        name: item.name,
        program: typeof item.program === 'string' ? item.program : null,
        range: isRange(item.range) ? item.range : ORIGIN,
      });
    }
  }
  return entries;
}

export function parsePasses(value: unknown): PassesResult {
  const result: PassesResult = { passes: [], pipelines: {} };
  if (!isObject(value)) {
    return result;
  }
  if (Array.isArray(value.passes)) {
    for (const item of value.passes) {
      if (isObject(item) && typeof item.name === 'string') {
        result.passes.push({
          name: item.name,
          description: typeof item.description === 'string' ? item.description : '',
        });
      }
    }
  }
  if (isObject(value.pipelines)) {
    for (const [name, passes] of Object.entries(value.pipelines)) {
      if (Array.isArray(passes)) {
        result.pipelines[name] = passes.filter((p): p is string => typeof p === 'string');
      }
    }
  }
  return result;
}

export function parseStatus(value: unknown): StatusParams | undefined {
  if (!isObject(value) || (value.state !== 'analysing' && value.state !== 'ready')) {
    return undefined;
  }
  const params: StatusParams = typeof value.uri === 'string' ? { state: value.state, uri: value.uri } : { state: value.state };
  return typeof value.edition === 'string' ? { ...params, edition: value.edition } : params;
}

export function parsePreviewChanged(value: unknown): PreviewChangedParams | undefined {
  if (!isObject(value) || typeof value.uri !== 'string') {
    return undefined;
  }
  return { uri: value.uri, version: typeof value.version === 'number' ? value.version : null };
}

export interface SourceMapParams {
  textDocument: { uri: string };
  target: PreviewTarget;
  function?: string;
}

export interface SourceMapEntry {
  // Inclusive 0-based lines of the preview content.
  generated: { startLine: number; endLine: number };
  source: LspRange;
}

export interface SourceMapResult {
  version: number | null;
  // The exact preview text the lines refer to.
  content: string;
  // Sorted by generated.startLine.
  entries: SourceMapEntry[];
}

function isLine(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

export function parseSourceMap(value: unknown): SourceMapResult | undefined {
  if (!isObject(value) || typeof value.content !== 'string') {
    return undefined;
  }
  const entries: SourceMapEntry[] = [];
  for (const item of Array.isArray(value.entries) ? value.entries : []) {
    if (!isObject(item) || !isObject(item.generated) || !isRange(item.source)) {
      continue;
    }
    const { startLine, endLine } = item.generated;
    if (isLine(startLine) && isLine(endLine) && endLine >= startLine) {
      entries.push({ generated: { startLine, endLine }, source: item.source });
    }
  }
  entries.sort((a, b) => a.generated.startLine - b.generated.startLine);
  return { version: typeof value.version === 'number' ? value.version : null, content: value.content, entries };
}

export interface MemoryMapParams {
  textDocument: { uri: string };
  function?: string;
}

export interface BufferUse {
  // Statement index in program order.
  index: number;
  range: LspRange;
}

export interface MemoryBuffer {
  name: string;
  space: string;
  // Byte address in its space.
  start: number;
  size: number;
  firstUse: BufferUse;
  lastUse: BufferUse;
  // Buffers sharing storage after MemoryReuse share a group.
  reuseGroup: number | null;
  dtype: string;
  shape: number[];
}

export interface MemorySpaceInfo {
  space: string;
  capacity: number;
  used: number;
  overflow: boolean;
}

export interface FunctionMemoryMap {
  name: string;
  range: LspRange;
  // Program-order length.
  statements: number;
  spaces: MemorySpaceInfo[];
  buffers: MemoryBuffer[];
}

export interface MemoryMapResult {
  version: number | null;
  functions: FunctionMemoryMap[];
  diagnostics: PreviewDiagnostic[];
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function parseUse(value: unknown): BufferUse | undefined {
  return isObject(value) && isCount(value.index) && isRange(value.range) ? { index: value.index, range: value.range } : undefined;
}

function parseBuffer(value: unknown): MemoryBuffer | undefined {
  if (!isObject(value) || typeof value.name !== 'string' || typeof value.space !== 'string') {
    return undefined;
  }
  const firstUse = parseUse(value.firstUse);
  const lastUse = parseUse(value.lastUse);
  if (!isCount(value.start) || !isCount(value.size) || firstUse === undefined || lastUse === undefined) {
    return undefined;
  }
  return {
    name: value.name,
    space: value.space,
    start: value.start,
    size: value.size,
    firstUse,
    lastUse: lastUse.index >= firstUse.index ? lastUse : firstUse,
    reuseGroup: typeof value.reuseGroup === 'number' ? value.reuseGroup : null,
    dtype: typeof value.dtype === 'string' ? value.dtype : '',
    shape: Array.isArray(value.shape) ? value.shape.filter((n): n is number => typeof n === 'number') : [],
  };
}

function parseSpace(value: unknown): MemorySpaceInfo | undefined {
  if (!isObject(value) || typeof value.space !== 'string' || !isCount(value.capacity)) {
    return undefined;
  }
  const used = isCount(value.used) ? value.used : 0;
  return { space: value.space, capacity: value.capacity, used, overflow: value.overflow === true || used > value.capacity };
}

function parseFunctionMemoryMap(value: unknown): FunctionMemoryMap | undefined {
  if (!isObject(value) || typeof value.name !== 'string') {
    return undefined;
  }
  const spaces = Array.isArray(value.spaces) ? value.spaces.map(parseSpace).filter((s) => s !== undefined) : [];
  const buffers = Array.isArray(value.buffers) ? value.buffers.map(parseBuffer).filter((b) => b !== undefined) : [];
  return {
    name: value.name,
    range: isRange(value.range) ? value.range : ORIGIN,
    statements: isCount(value.statements) ? value.statements : 0,
    spaces,
    buffers,
  };
}

export function parseMemoryMap(value: unknown): MemoryMapResult | undefined {
  if (!isObject(value) || !Array.isArray(value.functions)) {
    return undefined;
  }
  return {
    version: typeof value.version === 'number' ? value.version : null,
    functions: value.functions.map(parseFunctionMemoryMap).filter((f) => f !== undefined),
    diagnostics: Array.isArray(value.diagnostics)
      ? value.diagnostics.map(parseDiagnostic).filter((d): d is PreviewDiagnostic => d !== undefined)
      : [],
  };
}

export interface RunParams {
  textDocument: { uri: string };
  function: string;
  seed?: number;
  workDoneToken?: string;
}

export interface RunOutput {
  name: string;
  maxAbsError: number;
  maxRelError: number;
  ok: boolean;
}

export interface RunResult {
  ok: boolean;
  outputs: RunOutput[];
  // One line: the verdict, or why it could not run.
  message: string;
  // The build and run log.
  log: string;
}

function parseRunOutput(value: unknown): RunOutput | undefined {
  if (!isObject(value) || typeof value.name !== 'string' || typeof value.ok !== 'boolean') {
    return undefined;
  }
  const error = (x: unknown): number => (typeof x === 'number' ? x : Number.NaN);
  return { name: value.name, maxAbsError: error(value.maxAbsError), maxRelError: error(value.maxRelError), ok: value.ok };
}

export function parseRunResult(value: unknown): RunResult | undefined {
  if (!isObject(value) || typeof value.ok !== 'boolean') {
    return undefined;
  }
  return {
    ok: value.ok,
    outputs: Array.isArray(value.outputs) ? value.outputs.map(parseRunOutput).filter((o) => o !== undefined) : [],
    message: typeof value.message === 'string' ? value.message : '',
    log: typeof value.log === 'string' ? value.log : '',
  };
}
