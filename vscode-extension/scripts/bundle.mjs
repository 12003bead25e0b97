// Packs ptoc and ptols into the extension (run by `npm run package` before vsce), as the
// Python tools extensions do: `pip install --target bundled/libs` of the package and of its
// pure-Python dependencies, so any Python 3.11+ runs the server with nothing installed.
// The compiled dependencies (tree-sitter, numpy, ml_dtypes: one wheel per Python version and
// platform) are left out: the server runs without them and uses the interpreter's own when it
// has them (ptols/optional.py, `ptoc run`). The .vsix stays one file for every platform.
//
// Also copies the repository's LICENSE and CHANGELOG.md, which vsce packs from this folder.
// PTOC_BUNDLE_PYTHON chooses the Python that runs pip (default: ../.venv/bin/python, python3).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const extensionDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repo = resolve(extensionDir, '..');
const libs = join(extensionDir, 'bundled', 'libs');
/** Left to the interpreter's environment (compiled; see above). */
const COMPILED = new Set(['tree-sitter', 'tree-sitter-python', 'numpy', 'ml-dtypes']);
/** The oldest Python the server supports: environment markers are judged for it. */
const OLDEST_PYTHON = '3.11';

const venvPython = join(repo, '.venv', 'bin', 'python');
const python = process.env.PTOC_BUNDLE_PYTHON || (existsSync(venvPython) ? venvPython : 'python3');

function run(args, options = {}) {
  console.log(`[bundle] $ ${python} ${args.join(' ')}`);
  const result = spawnSync(python, args, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', cwd: repo, ...options });
  if (result.status !== 0) {
    throw new Error(`${python} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
  }
  return result.stdout;
}

/** The package's version and runtime requirements, as pyproject.toml and ptoc/__init__.py say. */
function projectFacts() {
  const script = [
    'import json, re, tomllib',
    'project = tomllib.load(open("pyproject.toml", "rb"))["project"]',
    'version = re.search(r\'__version__ = "([^"]+)"\', open("compiler/ptoc/__init__.py").read()).group(1)',
    'print(json.dumps({"version": version, "dependencies": project["dependencies"]}))',
  ].join('\n');
  return JSON.parse(run(['-c', script]));
}

/** `numpy>=1.26` -> `numpy`, normalised as PEP 503 does. */
function requirementName(requirement) {
  return /^[A-Za-z0-9._-]+/.exec(requirement)[0].toLowerCase().replace(/[._]+/g, '-');
}

const facts = projectFacts();
const manifest = JSON.parse(readFileSync(join(extensionDir, 'package.json'), 'utf8'));
if (manifest.version !== facts.version) {
  throw new Error(`package.json has version ${manifest.version}, ptoc ${facts.version}: they must be the same`);
}
const pure = facts.dependencies.filter((requirement) => !COMPILED.has(requirementName(requirement)));

rmSync(join(extensionDir, 'bundled'), { recursive: true, force: true });
mkdirSync(libs, { recursive: true });
const pip = ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-compile', '--target', libs];
run([...pip, '--no-deps', repo]);
run([...pip, '--only-binary=:all:', '--implementation', 'py', '--abi', 'none', '--platform', 'any', '--python-version', OLDEST_PYTHON, ...pure]);
// Console scripts pointing at the build's Python are of no use inside the extension.
rmSync(join(libs, 'bin'), { recursive: true, force: true });
const present = readdirSync(libs).filter((name) => name.endsWith('.dist-info')).map((name) => name.replace(/\.dist-info$/, ''));
console.log(`[bundle] bundled/libs: ${present.join(', ')}`);

for (const name of ['LICENSE', 'CHANGELOG.md']) {
  copyFileSync(join(repo, name), join(extensionDir, name));
}
