// The agents cairn can drive ("bridges"): the built-in ACP adapters, pinned, and any ACP
// command the user declares in `$CAIRN_HOME/config.json`. This module knows how each one is
// started and where its adapter lives; it never starts one itself.
//
// A built-in adapter is looked for first under `$CAIRN_HOME/agents/<key>` (where `cairn agents
// install` puts it), then on PATH. A declared agent is its own command, found on PATH or by path.
import { constants } from 'node:fs';
import { access, mkdir, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

export type BuiltInBridgeKey =
  | 'claude-code'
  | 'codex'
  | 'gemini-cli'
  | 'opencode'
  | 'qwen-code'
  | 'kilo'
  | 'pi'
  | 'copilot-cli';

/** A package installed beside an adapter, in the same prefix, that the adapter starts itself. */
export interface CompanionPackage {
  readonly npmPackage: string;
  readonly version: string;
  /** The executable it installs. */
  readonly bin: string;
  /**
   * The variable that tells the adapter where that executable is; set to the installed one when
   * the adapter is cairn's own install.
   */
  readonly pathVariable?: string;
}

/** One of the agents cairn knows by name, with its ACP adapter pinned. */
export interface BuiltInBridge {
  readonly kind: 'builtin';
  readonly key: BuiltInBridgeKey;
  /** What a person calls it. */
  readonly name: string;
  /** The adapter's package on npm. */
  readonly npmPackage: string;
  /** The adapter version cairn installs and is tested against. */
  readonly version: string;
  /** The executable the package installs, and the arguments that make it speak ACP on stdio. */
  readonly bin: string;
  readonly args: readonly string[];
  /** The user's own CLI; on PATH means the user has this agent (and likely its sign-in). */
  readonly cli: string;
  /**
   * What the pinned adapter advertises in `initialize`, known ahead of starting it. The runner
   * believes the agent's real `initialize` answer over these.
   */
  readonly supportsSteering: boolean;
  readonly supportsImageInput: boolean;
  /**
   * The agent opens a session signed out and asks for a sign-in only at the first prompt, so a
   * session it accepted proves no sign-in.
   */
  readonly asksSignInAtPrompt?: boolean;
  /**
   * Start the process in a folder of cairn's own (`agentStartDir`) instead of the session's.
   * For an agent whose start-up housekeeping deletes files in the store of the folder it starts
   * in; its sessions still get their own folder in `session/new` and `session/load`.
   */
  readonly startsInOwnFolder?: boolean;
  /** Packages the adapter needs beside it (pi's ACP adapter drives the `pi` CLI). */
  readonly companions?: readonly CompanionPackage[];
  /**
   * The adapter ends a turn the model refused as if it had answered, saying nothing, while the
   * agent's own session file keeps the provider's error: the agent name cairn's reader reads that
   * file by, so the turn's error can be read back from there.
   */
  readonly errorsInStore?: string;
  /**
   * Added to the agent's environment: switches that keep the pinned adapter from updating itself
   * or reporting home. They never name a model or a key; the user's own settings do that.
   */
  readonly env?: Readonly<Record<string, string>>;
}

/** An ACP agent the user declared under `agents` in `$CAIRN_HOME/config.json`. */
export interface DeclaredBridge {
  readonly kind: 'declared';
  readonly key: string;
  readonly name: string;
  /** A program on PATH, or a path (absolute, or relative to `$CAIRN_HOME`). */
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the agent's environment. */
  readonly env: Readonly<Record<string, string>>;
}

export type Bridge = BuiltInBridge | DeclaredBridge;

export const BUILT_IN_BRIDGES: readonly BuiltInBridge[] = [
  {
    kind: 'builtin',
    key: 'claude-code',
    name: 'Claude Code',
    npmPackage: '@agentclientprotocol/claude-agent-acp',
    version: '0.101.0',
    bin: 'claude-agent-acp',
    args: [],
    cli: 'claude',
    supportsSteering: true,
    supportsImageInput: true,
    asksSignInAtPrompt: true,
  },
  {
    kind: 'builtin',
    key: 'codex',
    name: 'Codex',
    npmPackage: '@agentclientprotocol/codex-acp',
    version: '2.6.0',
    bin: 'codex-acp',
    args: [],
    cli: 'codex',
    supportsSteering: true,
    supportsImageInput: true,
  },
  {
    kind: 'builtin',
    key: 'gemini-cli',
    name: 'Gemini CLI',
    npmPackage: '@google/gemini-cli',
    version: '0.61.0',
    bin: 'gemini',
    args: ['--acp'],
    cli: 'gemini',
    supportsSteering: false,
    supportsImageInput: true,
    // Every start sweeps the chats of the folder it starts in (`general.sessionRetention`, on by
    // default): it deletes sessions older than 30 days, even the one about to be loaded, and takes
    // for debris the header-only file each `session/load` leaves beside the loaded session, then
    // deletes every file sharing the session's 8-character id prefix: the session itself. Started
    // in a folder of cairn's, its sweeps never reach the user's projects.
    startsInOwnFolder: true,
  },
  {
    kind: 'builtin',
    key: 'opencode',
    name: 'OpenCode',
    npmPackage: 'opencode-ai',
    version: '1.18.33',
    bin: 'opencode',
    args: ['acp'],
    cli: 'opencode',
    supportsSteering: false,
    supportsImageInput: true,
    asksSignInAtPrompt: true,
  },
  {
    kind: 'builtin',
    key: 'qwen-code',
    name: 'Qwen Code',
    npmPackage: '@qwen-code/qwen-code',
    // Declares Node >= 22 and runs on 20.
    version: '0.24.4',
    bin: 'qwen',
    args: ['--acp'],
    cli: 'qwen',
    supportsSteering: false,
    supportsImageInput: true,
  },
  {
    kind: 'builtin',
    key: 'kilo',
    name: 'Kilo',
    npmPackage: '@kilocode/cli',
    // 7.8.1's native package is missing from npm.
    version: '7.7.7',
    bin: 'kilo',
    args: ['acp'],
    cli: 'kilo',
    supportsSteering: false,
    supportsImageInput: true,
    env: { KILO_DISABLE_AUTOUPDATE: '1' },
  },
  {
    kind: 'builtin',
    key: 'pi',
    name: 'pi',
    // pi's ACP adapter; it starts the `pi` CLI (`--mode rpc`) for each session. 0.0.34 hangs.
    npmPackage: 'pi-acp',
    version: '0.0.24',
    bin: 'pi-acp',
    args: [],
    cli: 'pi',
    supportsSteering: false,
    supportsImageInput: true,
    // pi-acp drops a failed request's error and ends the turn `end_turn`; pi's file keeps it.
    errorsInStore: 'pi',
    companions: [
      {
        npmPackage: '@mariozechner/pi-coding-agent',
        version: '0.73.1',
        bin: 'pi',
        pathVariable: 'PI_ACP_PI_COMMAND',
      },
    ],
  },
  {
    kind: 'builtin',
    key: 'copilot-cli',
    name: 'Copilot CLI',
    npmPackage: '@github/copilot',
    version: '1.0.102',
    bin: 'copilot',
    args: ['--acp'],
    cli: 'copilot',
    supportsSteering: false,
    supportsImageInput: true,
  },
];

export function builtInBridge(key: string): BuiltInBridge | undefined {
  return BUILT_IN_BRIDGES.find((b) => b.key === key);
}

export function isBuiltInBridgeKey(key: string): key is BuiltInBridgeKey {
  return builtInBridge(key) !== undefined;
}

// ---------------------------------------------------------------------------------------------
// Folders

/** `$CAIRN_HOME`, else `~/.cairn`. */
export function cairnHomeOf(env: Env = process.env): string {
  const set = env.CAIRN_HOME;
  return set !== undefined && set !== '' ? resolve(set) : join(env.HOME || homedir(), '.cairn');
}

/** Where `cairn agents install <key>` puts an adapter: its own npm prefix. */
export function adapterDir(cairnHome: string, key: string): string {
  return join(cairnHome, 'agents', key);
}

/** The folder a bridge with `startsInOwnFolder` starts in: cairn's, never a project of the user's. */
export function agentStartDir(cairnHome: string, key: string): string {
  return join(cairnHome, 'agent-cwd', key);
}

/** The adapter's executable inside its install folder (or a companion's, by its bin name). */
export function adapterBinPath(cairnHome: string, bridge: BuiltInBridge, bin = bridge.bin): string {
  const name = process.platform === 'win32' ? `${bin}.cmd` : bin;
  return join(adapterDir(cairnHome, bridge.key), 'node_modules', '.bin', name);
}

/** The version of the adapter installed under `$CAIRN_HOME/agents/<key>`, if any. */
export async function installedAdapterVersion(
  key: string | BuiltInBridge,
  cairnHome: string,
): Promise<string | undefined> {
  const bridge = typeof key === 'string' ? builtInBridge(key) : key;
  if (bridge === undefined) return undefined;
  const manifest = join(adapterDir(cairnHome, bridge.key), 'node_modules', bridge.npmPackage, 'package.json');
  try {
    const parsed = JSON.parse(await readFile(manifest, 'utf8')) as { version?: unknown };
    if (typeof parsed.version !== 'string') return undefined;
    if (!(await isExecutable(adapterBinPath(cairnHome, bridge)))) return undefined;
    return parsed.version;
  } catch {
    return undefined;
  }
}

/** Whether every companion of the bridge is installed beside it, at its pinned version. */
export async function companionsInstalled(bridge: BuiltInBridge, cairnHome: string): Promise<boolean> {
  for (const companion of bridge.companions ?? []) {
    const manifest = join(
      adapterDir(cairnHome, bridge.key),
      'node_modules',
      companion.npmPackage,
      'package.json',
    );
    try {
      const parsed = JSON.parse(await readFile(manifest, 'utf8')) as { version?: unknown };
      if (parsed.version !== companion.version) return false;
      if (!(await isExecutable(adapterBinPath(cairnHome, bridge, companion.bin)))) return false;
    } catch {
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// PATH

async function isExecutable(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return false;
    await access(path, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable named `name` on `env.PATH`, as an absolute path. */
export async function findOnPath(name: string, env: Env = process.env): Promise<string | undefined> {
  const path = env.PATH ?? env.Path ?? '';
  const exts =
    process.platform === 'win32' ? ['', ...(env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';')] : [''];
  for (const dir of path.split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    for (const ext of exts) {
      const candidate = join(dir, name + ext);
      if (await isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

/** Whether the user's own CLI for a built-in agent is on PATH. A declared agent is its own CLI. */
export async function cliInstalled(bridge: Bridge, env: Env = process.env): Promise<boolean> {
  if (bridge.kind === 'declared') return (await resolveDeclared(bridge, undefined, env)) !== undefined;
  return (await findOnPath(bridge.cli, env)) !== undefined;
}

// ---------------------------------------------------------------------------------------------
// The command line to spawn

export interface BridgeCommand {
  readonly installed: true;
  /** An absolute path to the executable. */
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the agent's environment: a declared agent's `env`; a built-in's switches and companions. */
  readonly env: Readonly<Record<string, string>>;
  /** `cairn`: the adapter under `$CAIRN_HOME/agents`; `path`: found on PATH; `declared`: config. */
  readonly source: 'cairn' | 'path' | 'declared';
  /** The folder the process starts in, when it must not be the session's (it exists). */
  readonly cwd?: string;
}

export interface BridgeNotInstalled {
  readonly installed: false;
  readonly message: string;
}

export type BridgeResolution = BridgeCommand | BridgeNotInstalled;

export interface ResolveOptions {
  readonly cairnHome: string;
  /** Whose PATH is searched; `process.env` when absent. */
  readonly env?: Env;
}

/**
 * The command line that starts `bridge` speaking ACP on stdio: cairn's own install of the adapter
 * first, else the adapter on PATH, else "not installed".
 */
export async function resolveBridgeCommand(
  bridge: Bridge,
  options: ResolveOptions,
): Promise<BridgeResolution> {
  const env = options.env ?? process.env;
  if (bridge.kind === 'declared') {
    const command = await resolveDeclared(bridge, options.cairnHome, env);
    if (command === undefined) {
      return { installed: false, message: `${bridge.name}: ${bridge.command} was not found` };
    }
    return { installed: true, command, args: bridge.args, env: bridge.env, source: 'declared' };
  }
  const own = adapterBinPath(options.cairnHome, bridge);
  const where = await startFolder(bridge, options.cairnHome);
  if (await isExecutable(own)) {
    const companions: Record<string, string> = {};
    for (const c of bridge.companions ?? []) {
      const path = adapterBinPath(options.cairnHome, bridge, c.bin);
      if (c.pathVariable !== undefined && (await isExecutable(path))) companions[c.pathVariable] = path;
    }
    const ownEnv = { ...bridge.env, ...companions };
    return { installed: true, command: own, args: bridge.args, env: ownEnv, source: 'cairn', ...where };
  }
  const onPath = await findOnPath(bridge.bin, env);
  if (onPath !== undefined) {
    const pathEnv = { ...bridge.env };
    return { installed: true, command: onPath, args: bridge.args, env: pathEnv, source: 'path', ...where };
  }
  return {
    installed: false,
    message: `${bridge.name} is not installed: cairn agents install ${bridge.key}`,
  };
}

async function startFolder(bridge: BuiltInBridge, cairnHome: string): Promise<{ cwd?: string }> {
  if (bridge.startsInOwnFolder !== true) return {};
  const cwd = agentStartDir(cairnHome, bridge.key);
  await mkdir(cwd, { recursive: true, mode: 0o700 });
  return { cwd };
}

async function resolveDeclared(bridge: DeclaredBridge, cairnHome: string | undefined, env: Env) {
  const { command } = bridge;
  if (command.includes('/') || command.includes('\\')) {
    const path = isAbsolute(command) ? command : resolve(cairnHome ?? cairnHomeOf(env), command);
    return (await isExecutable(path)) ? path : undefined;
  }
  return findOnPath(command, env);
}

// ---------------------------------------------------------------------------------------------
// Declared agents in $CAIRN_HOME/config.json

/** One entry (or the whole `agents` value) that could not be used, and why. */
export interface AgentConfigProblem {
  /** The entry's key; null when the problem is the file or the `agents` value itself. */
  readonly key: string | null;
  readonly message: string;
}

export interface DeclaredAgents {
  /** The entries that are usable, in the file's order. */
  readonly bridges: readonly DeclaredBridge[];
  readonly problems: readonly AgentConfigProblem[];
}

const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The agents a parsed `config.json` declares. Bad entries are left out and reported, one problem
 * each, naming the entry and the field; good ones are kept. Never throws.
 */
export function declaredAgentsOfConfig(config: unknown): DeclaredAgents {
  if (config === undefined || config === null) return { bridges: [], problems: [] };
  if (!isPlainObject(config)) {
    return { bridges: [], problems: [{ key: null, message: 'the config is not a JSON object' }] };
  }
  const agents = config.agents;
  if (agents === undefined) return { bridges: [], problems: [] };
  if (!isPlainObject(agents)) {
    return {
      bridges: [],
      problems: [{ key: null, message: '"agents" must be an object of {"<key>": {"command": ...}}' }],
    };
  }
  const bridges: DeclaredBridge[] = [];
  const problems: AgentConfigProblem[] = [];
  for (const [key, entry] of Object.entries(agents)) {
    const bad = (what: string) => problems.push({ key, message: `agents.${key}: ${what}` });
    if (!KEY.test(key)) {
      bad('the key must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit');
      continue;
    }
    if (isBuiltInBridgeKey(key)) {
      bad(`"${key}" is a built-in agent; declare yours under another key`);
      continue;
    }
    if (!isPlainObject(entry)) {
      bad('must be an object with at least "command"');
      continue;
    }
    const { name, command, args, env } = entry;
    if (typeof command !== 'string' || command.trim() === '') {
      bad('"command" must be a non-empty string');
      continue;
    }
    if (name !== undefined && (typeof name !== 'string' || name.trim() === '')) {
      bad('"name" must be a non-empty string when given');
      continue;
    }
    if (args !== undefined && !(Array.isArray(args) && args.every((a) => typeof a === 'string'))) {
      bad('"args" must be an array of strings');
      continue;
    }
    if (
      env !== undefined &&
      !(isPlainObject(env) && Object.values(env).every((v) => typeof v === 'string'))
    ) {
      bad('"env" must be an object of string values');
      continue;
    }
    bridges.push({
      kind: 'declared',
      key,
      name: typeof name === 'string' ? name : key,
      command,
      args: (args as string[] | undefined) ?? [],
      env: (env as Record<string, string> | undefined) ?? {},
    });
  }
  return { bridges, problems };
}

/** The declared agents of `$CAIRN_HOME/config.json`; an unreadable file is a problem, not a throw. */
export async function readDeclaredAgents(cairnHome: string): Promise<DeclaredAgents> {
  const path = join(cairnHome, 'config.json');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return { bridges: [], problems: [] };
    return {
      bridges: [],
      problems: [{ key: null, message: `cannot read config.json: ${(cause as Error).message}` }],
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    return {
      bridges: [],
      problems: [{ key: null, message: `config.json is not JSON: ${(cause as Error).message}` }],
    };
  }
  const found = declaredAgentsOfConfig(parsed);
  return {
    bridges: found.bridges,
    problems: found.problems.map((p) => ({ key: p.key, message: `config.json: ${p.message}` })),
  };
}

/** The whole roster: the built-ins, then the user's declared agents. */
export async function readRoster(cairnHome: string): Promise<{
  readonly bridges: readonly Bridge[];
  readonly problems: readonly AgentConfigProblem[];
}> {
  const declared = await readDeclaredAgents(cairnHome);
  return { bridges: [...BUILT_IN_BRIDGES, ...declared.bridges], problems: declared.problems };
}

/** A bridge of the roster by key, built-in or declared. */
export async function findBridge(cairnHome: string, key: string): Promise<Bridge | undefined> {
  return builtInBridge(key) ?? (await readDeclaredAgents(cairnHome)).bridges.find((b) => b.key === key);
}
