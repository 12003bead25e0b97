/**
 * The `ptoc.*` settings and what the server receives for the configuration section `ptoc`.
 * The shape is exactly VS Code's nested form of the settings (`ptoc.preview.defaultTarget`
 * becomes `preview.defaultTarget`), with every value checked and defaulted, so a server that
 * reads the raw section and one that reads this normalised form see the same thing.
 */

export const SECTION = 'ptoc';

export type TraceLevel = 'off' | 'messages' | 'verbose';
export type DefaultTarget = 'cce' | 'pto' | 'pto-cpp' | 'ir';
export type Pipeline = 'auto' | 'default' | 'ptoas';
export type SeverityOverride = 'error' | 'warning' | 'information' | 'hint' | 'off';
/** The PyPTO language edition of every file; `auto`: the project's, else each file's own. */
export type Edition = 'auto' | '2026-03' | '2026-08';
/** Which ptoc runs: the one in the extension (`bundled/libs`) or the interpreter's own. */
export type ImportStrategy = 'useBundled' | 'fromEnvironment';

export interface ServerSettings {
  python: string;
  importStrategy: ImportStrategy;
  trace: { server: TraceLevel };
  preview: { defaultTarget: DefaultTarget };
  pipeline: Pipeline;
  /** `enabled`: deduced types; `sync`: where InsertSync put set_flag/wait_flag/pipe_barrier;
   * `cycles`: each kernel line's predicted cycles; `parameterNames`: `offsets:` before
   * positional op arguments. */
  inlayHints: { enabled: boolean; sync: boolean; cycles: boolean; parameterNames: boolean };
  formatOnSave: boolean;
  strictAnnotations: boolean;
  edition: Edition;
  severityOverrides: Record<string, SeverityOverride>;
}

export const DEFAULT_SETTINGS: ServerSettings = {
  python: '',
  importStrategy: 'useBundled',
  trace: { server: 'off' },
  preview: { defaultTarget: 'cce' },
  pipeline: 'auto',
  inlayHints: { enabled: true, sync: true, cycles: true, parameterNames: false },
  formatOnSave: false,
  strictAnnotations: false,
  edition: 'auto',
  severityOverrides: {},
};

const TRACE_LEVELS: readonly TraceLevel[] = ['off', 'messages', 'verbose'];
const TARGETS: readonly DefaultTarget[] = ['cce', 'pto', 'pto-cpp', 'ir'];
const PIPELINES: readonly Pipeline[] = ['auto', 'default', 'ptoas'];
const IMPORT_STRATEGIES: readonly ImportStrategy[] = ['useBundled', 'fromEnvironment'];
const EDITIONS: readonly Edition[] = ['auto', '2026-03', '2026-08'];
const SEVERITIES: readonly SeverityOverride[] = ['error', 'warning', 'information', 'hint', 'off'];

export interface NormalisedSettings {
  settings: ServerSettings;
  /** One line per ignored value, for the output channel. */
  problems: string[];
}

type Json = Record<string, unknown>;

function asObject(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function pick<T extends string>(value: unknown, allowed: readonly T[], fallback: T, key: string, problems: string[]): T {
  if (value === undefined || value === null) {
    return fallback;
  }
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) {
    return value as T;
  }
  problems.push(`ptoc.${key}: ${JSON.stringify(value)} is not one of ${allowed.join(', ')}; using "${fallback}"`);
  return fallback;
}

function flag(value: unknown, fallback: boolean, key: string, problems: string[]): boolean {
  if (value === undefined || value === null) {
    return fallback;
  }
  if (typeof value === 'boolean') {
    return value;
  }
  problems.push(`ptoc.${key}: ${JSON.stringify(value)} is not true or false; using ${fallback}`);
  return fallback;
}

function severityOverrides(value: unknown, problems: string[]): Record<string, SeverityOverride> {
  const result: Record<string, SeverityOverride> = {};
  for (const [code, severity] of Object.entries(asObject(value))) {
    const normalised = typeof severity === 'string' ? severity.trim().toLowerCase() : severity;
    if (code.trim() === '') {
      problems.push('ptoc.severityOverrides: an empty diagnostic code is ignored');
    } else if (typeof normalised === 'string' && (SEVERITIES as readonly string[]).includes(normalised)) {
      result[code.trim()] = normalised as SeverityOverride;
    } else {
      problems.push(
        `ptoc.severityOverrides: ${code} -> ${JSON.stringify(severity)} is not one of ${SEVERITIES.join(', ')}; ignored`,
      );
    }
  }
  return result;
}

/** `raw` is what `workspace.getConfiguration().get('ptoc')` returns (anything, defensively). */
export function toServerSettings(raw: unknown): NormalisedSettings {
  const problems: string[] = [];
  const root = asObject(raw);
  const python = typeof root.python === 'string' ? root.python.trim() : DEFAULT_SETTINGS.python;
  const settings: ServerSettings = {
    python,
    importStrategy: pick(root.importStrategy, IMPORT_STRATEGIES, DEFAULT_SETTINGS.importStrategy, 'importStrategy', problems),
    trace: { server: pick(asObject(root.trace).server, TRACE_LEVELS, DEFAULT_SETTINGS.trace.server, 'trace.server', problems) },
    preview: {
      defaultTarget: pick(
        asObject(root.preview).defaultTarget,
        TARGETS,
        DEFAULT_SETTINGS.preview.defaultTarget,
        'preview.defaultTarget',
        problems,
      ),
    },
    pipeline: pick(root.pipeline, PIPELINES, DEFAULT_SETTINGS.pipeline, 'pipeline', problems),
    inlayHints: {
      enabled: flag(asObject(root.inlayHints).enabled, DEFAULT_SETTINGS.inlayHints.enabled, 'inlayHints.enabled', problems),
      sync: flag(asObject(root.inlayHints).sync, DEFAULT_SETTINGS.inlayHints.sync, 'inlayHints.sync', problems),
      cycles: flag(asObject(root.inlayHints).cycles, DEFAULT_SETTINGS.inlayHints.cycles, 'inlayHints.cycles', problems),
      parameterNames: flag(
        asObject(root.inlayHints).parameterNames,
        DEFAULT_SETTINGS.inlayHints.parameterNames,
        'inlayHints.parameterNames',
        problems,
      ),
    },
    formatOnSave: flag(root.formatOnSave, DEFAULT_SETTINGS.formatOnSave, 'formatOnSave', problems),
    strictAnnotations: flag(root.strictAnnotations, DEFAULT_SETTINGS.strictAnnotations, 'strictAnnotations', problems),
    edition: pick(root.edition, EDITIONS, DEFAULT_SETTINGS.edition, 'edition', problems),
    severityOverrides: severityOverrides(root.severityOverrides, problems),
  };
  return { settings, problems };
}

/**
 * The answer to one `workspace/configuration` item: the whole normalised section for `ptoc`,
 * the matching part of it for `ptoc.x.y`, and `undefined` for sections that are not ours
 * (the caller keeps VS Code's own answer for those).
 */
export function configurationFor(section: string | undefined, settings: ServerSettings): unknown {
  if (section === SECTION) {
    return settings;
  }
  if (!section?.startsWith(`${SECTION}.`)) {
    return undefined;
  }
  let value: unknown = settings;
  for (const key of section.slice(SECTION.length + 1).split('.')) {
    value = asObject(value)[key];
  }
  return value ?? null;
}

/** Settings whose change needs a new server process (the rest reach it as configuration). */
export const RESTART_SETTINGS: readonly string[] = [`${SECTION}.python`, `${SECTION}.importStrategy`];
