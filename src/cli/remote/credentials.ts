import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../cli-support.js';

/** Where a server is and who calls it; any part may be missing until resolved. */
export interface Credentials {
  url?: string;
  email?: string;
  apiKey?: string;
}

/** Complete credentials, ready to call the management API. */
export interface ServerTarget {
  url: string;
  email: string;
  apiKey: string;
}

/**
 * The login file: `$XDG_CONFIG_HOME/searchplane/credentials.json`, or
 * `~/.config/searchplane/credentials.json` when XDG_CONFIG_HOME is unset.
 */
export function credentialsPath(env: NodeJS.ProcessEnv): string {
  const configHome = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(configHome, 'searchplane', 'credentials.json');
}

/**
 * The saved credentials, or `{}` when there is no login file. A file that cannot be read, or
 * holds anything but a JSON object, is a {@link UsageError} saying how to fix it.
 */
export function readCredentialsFile(file: string): Credentials {
  if (!existsSync(file)) return {};
  const fix = 'run `searchplane login` again (or `searchplane logout`)';
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}): ${fix}`);
  }
  let saved: unknown;
  try {
    saved = JSON.parse(text);
  } catch {
    saved = undefined;
  }
  if (typeof saved !== 'object' || saved === null || Array.isArray(saved)) {
    throw new UsageError(`${file} is not valid JSON: ${fix}`);
  }
  const { url, email, api_key } = saved as { url?: unknown; email?: unknown; api_key?: unknown };
  const value = (field: unknown) => (typeof field === 'string' && field !== '' ? field : undefined);
  return { url: value(url), email: value(email), apiKey: value(api_key) };
}

/**
 * Saves credentials readable by the user only: the file is created with mode 0600 (and set to
 * it if it existed), its folder with 0700.
 */
export function writeCredentialsFile(file: string, credentials: ServerTarget): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const body = { url: credentials.url, email: credentials.email, api_key: credentials.apiKey };
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  // writeFileSync keeps the mode of an existing file; a key must never stay group-readable.
  chmodSync(file, 0o600);
}

/** Removes the login file; false when there was none. */
export function removeCredentialsFile(file: string): boolean {
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}

/**
 * Each part from the first source that has it: flags, then SEARCHPLANE_URL /
 * SEARCHPLANE_EMAIL / SEARCHPLANE_API_KEY, then the login file. The file is read only when a
 * part is still missing, so a broken file does not stop a command given everything it needs.
 */
export function mergeCredentials(flags: Credentials, env: NodeJS.ProcessEnv, readFile: () => Credentials): Credentials {
  const pick = (...values: (string | undefined)[]) => values.find((value) => value !== undefined && value !== '');
  const given = {
    url: pick(flags.url, env.SEARCHPLANE_URL),
    email: pick(flags.email, env.SEARCHPLANE_EMAIL),
    apiKey: pick(flags.apiKey, env.SEARCHPLANE_API_KEY),
  };
  if (given.url && given.email && given.apiKey) return given;
  const file = readFile();
  return { url: given.url ?? file.url, email: given.email ?? file.email, apiKey: given.apiKey ?? file.apiKey };
}

/** Checks that every part is there and the URL is http(s); a {@link UsageError} says what is missing. */
export function requireTarget(credentials: Credentials): ServerTarget {
  const missing = [
    credentials.url ? undefined : '--url (SEARCHPLANE_URL)',
    credentials.email ? undefined : '--email (SEARCHPLANE_EMAIL)',
    credentials.apiKey ? undefined : '--key (SEARCHPLANE_API_KEY)',
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new UsageError(`no server credentials: give ${missing.join(', ')}, or run \`searchplane login\``);
  }
  return { url: normalizeUrl(credentials.url!), email: credentials.email!, apiKey: credentials.apiKey! };
}

/** The base URL without trailing slashes; a {@link UsageError} unless it is http(s). */
export function normalizeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`invalid server URL "${url}" (expected e.g. http://127.0.0.1:8080)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`invalid server URL "${url}": use http:// or https://`);
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}
