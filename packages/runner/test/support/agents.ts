// The real agents, for tests: installed once per machine through cairn's own install path, and
// started with an environment that points them at the fake model on 127.0.0.1 with homes of
// their own, so nothing reaches the network or the user's real agent folders.
//
// Each agent gets HOME, the XDG folders and TMPDIR under the test's scratch folder, PATH and the
// locale from here, and nothing else of this process's environment. What each needs beyond that,
// as found by driving the pinned adapters against the fake model:
//
// claude-code (claude-agent-acp 0.101.0): ANTHROPIC_BASE_URL (no /v1) and any ANTHROPIC_API_KEY;
//   it calls POST /v1/messages?beta=true, streaming: a side request for the session title (no
//   tools) and then the main loop (tools offered). Its default mode, `auto`, decides permissions
//   itself; `session/set_mode {modeId: 'default'}` makes it ask before a `Write`, with options
//   allow-once / allow-with-updates (allow_always) / reject. It writes the file itself (the
//   client advertises no fs). Reports usage as `usage_update` notifications and in the prompt
//   answer's `usage`. Without a key: `session/new` works, `session/prompt` fails -32000.
// codex (codex-acp 2.6.0, codex 0.166): a CODEX_HOME of its own whose config.toml names a model
//   provider with `base_url` = the fake server's /v1 and `wire_api = "responses"`; a custom
//   provider needs no sign-in, so no `authenticate` step (the `gateway` auth method is not
//   needed). Model `gpt-5.5` is one codex has metadata for (another name adds a warning to the
//   reply text) and is offered `apply_patch` as a freeform tool. INITIAL_AGENT_MODE=read-only
//   makes it ask before the patch, with options allow_once / allow_for_session (allow_always) /
//   cancel (reject_once); choosing `cancel` ends the turn `cancelled`. It calls POST
//   /v1/responses, streaming, and no model list. Usage: `usage_update` and the prompt answer.
//   Without a provider or key: `session/new` fails -32000. The ACP way works as well (option
//   `codexVia: 'gateway'`): `initialize` with `clientCapabilities.auth._meta.gateway: true` adds
//   a `gateway` auth method, and `authenticate {methodId: 'gateway', _meta: {gateway: {baseUrl,
//   headers, providerName}}}` routes the session to baseUrl, sending those headers.
// gemini-cli (0.61.0, `gemini --acp`): GEMINI_API_KEY (any) and GOOGLE_GEMINI_BASE_URL (no
//   version); it calls POST /v1beta/models/<model>:streamGenerateContent?alt=sse for the turn and
//   :generateContent for model routing (a JSON answer). In its `default` mode it asks before
//   write_file, with options proceed_always (allow_always) / proceed_once / cancel (reject_once);
//   a rejection goes back to the model and the turn ends `end_turn`. No usage notifications:
//   token counts only in the prompt answer's `_meta.quota`. Without a key: `session/new` fails
//   -32000 "Gemini API key is missing or not configured.". Starts in 2–10 s.
// opencode (opencode-ai 1.18.33, `opencode acp`): OPENCODE_CONFIG_CONTENT with a provider
//   (npm `@ai-sdk/openai-compatible`, `options.baseURL` = the fake server's /v1) set as `model`
//   and `small_model`, and `permission.edit: 'ask'`; the OPENCODE_DISABLE_* switches below keep
//   it off the network (it still installs its plugin package into its config folder from npm,
//   in the background). It calls POST /v1/chat/completions, streaming. It asks before `write`
//   with options once (allow_once) / always (allow_always) / reject (reject_once). It tries
//   `fs/write_text_file` even when the client does not offer it, then writes itself. Usage only
//   in the prompt answer (the last step's counts). Without credentials it never fails offline
//   (a free default model, retried forever), so the no-credentials recipe names a provider that
//   needs a key and has none: `session/prompt` fails -32000 "provider authentication required".
// qwen-code (@qwen-code/qwen-code 0.24.4, `qwen --acp`): OPENAI_API_KEY, OPENAI_BASE_URL (the
//   fake server's /v1) and OPENAI_MODEL, with `security.auth.selectedType: 'openai'` in
//   ~/.qwen/settings.json; statistics, telemetry, updates and the background memory agent (which
//   would ask the model again after each turn) are switched off there. Chat Completions, streamed.
// kilo (@kilocode/cli 7.7.7, `kilo acp`): KILO_CONFIG_CONTENT, the same shape as OpenCode's, and
//   the KILO_DISABLE_* switches below. Chat Completions, streamed. Its store is
//   $XDG_DATA_HOME/kilo/kilo.db.
// pi (pi-acp 0.0.24 driving @mariozechner/pi-coding-agent 0.73.1, installed side by side; the
//   bridge hands pi-acp the installed `pi` in PI_ACP_PI_COMMAND): ~/.pi/agent/models.json names a
//   provider (`api: 'openai-completions'`) and settings.json makes it the default; PI_OFFLINE
//   keeps pi from fetching its tools at start. Its first answer starts with a line break.
// copilot-cli (@github/copilot 1.0.102, `copilot --acp`): COPILOT_PROVIDER_* and COPILOT_MODEL
//   with COPILOT_OFFLINE=true; it unpacks its runtime (~235 MB) into $XDG_CACHE_HOME on first
//   start, so that part of each test's cache links to one unpack beside the installed agents
//   (copilot-packages.ts). It writes its token counts (`session.shutdown`) only when its stdin
//   closes and it is given a moment; a SIGTERM at once leaves the session without them.
// All four load a session in a new process (`session/load`) and continue it in the same store.
//
// session/cancel while the model is still streaming: claude, codex and gemini answer `cancelled`
// within about 70 ms; opencode answers `cancelled` too, after up to a few seconds. Closing the
// process group after a turn leaves no process behind for any of the four.
import { mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import {
  adapterBinPath,
  type BuiltInBridgeKey,
  builtInBridge,
  resolveBridgeCommand,
} from '../../src/bridges.js';
import { installAdapter } from '../../src/install.js';
import { linkCopilotPackages } from './copilot-packages.js';

export const TEST_AGENT_KEYS: readonly BuiltInBridgeKey[] = [
  'claude-code',
  'codex',
  'gemini-cli',
  'opencode',
  'qwen-code',
  'kilo',
  'pi',
  'copilot-cli',
];

/** The cairn home whose agents/ folder holds the real adapters the tests drive. */
export function testAgentsHome(): string {
  const set = process.env.CAIRN_TEST_AGENTS;
  return set !== undefined && set !== '' ? set : join(homedir(), '.cache', 'cairn-test-agents');
}

let ensured: Promise<string> | undefined;

/**
 * Installs the real adapters through cairn's own install path, once per machine; later runs
 * find them installed. Two installs at a time. Resolves to the cairn home that holds them.
 */
export function ensureTestAgents(): Promise<string> {
  ensured ??= (async () => {
    const home = testAgentsHome();
    await mkdir(home, { recursive: true });
    const env = await installEnv(home);
    const queue = [...TEST_AGENT_KEYS];
    const failures: string[] = [];
    const worker = async () => {
      for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
        const result = await installAdapter(builtInBridge(key)!, {
          cairnHome: home,
          acceptOtherVersion: false,
          env,
        });
        if (!result.ok) failures.push(`${key}: ${result.error}`);
      }
    };
    await Promise.all([worker(), worker()]);
    if (failures.length > 0) {
      ensured = undefined;
      throw new Error(`cannot install the test agents:\n${failures.join('\n')}`);
    }
    return home;
  })();
  return ensured;
}

/**
 * npm's environment for installing the test agents: this user's npm cache and settings, but a
 * HOME and XDG folders of its own, because install scripts run the agents (opencode's checks
 * its binary by starting it) and those must not touch the real home.
 */
export async function installEnv(home: string): Promise<Record<string, string | undefined>> {
  const installHome = join(home, 'install-home');
  const dirs = {
    HOME: installHome,
    XDG_CONFIG_HOME: join(installHome, '.config'),
    XDG_DATA_HOME: join(installHome, '.local', 'share'),
    XDG_STATE_HOME: join(installHome, '.local', 'state'),
    XDG_CACHE_HOME: join(installHome, '.cache'),
    TMPDIR: join(installHome, 'tmp'),
  };
  for (const dir of Object.values(dirs)) await mkdir(dir, { recursive: true });
  return {
    ...process.env,
    ...dirs,
    npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm'),
    npm_config_userconfig: process.env.npm_config_userconfig ?? join(homedir(), '.npmrc'),
  };
}

/** The command line of an installed test agent. */
export function testAgentCommand(
  key: BuiltInBridgeKey,
  home = testAgentsHome(),
): { command: string; args: string[] } {
  const bridge = builtInBridge(key)!;
  return { command: adapterBinPath(home, bridge), args: [...bridge.args] };
}

/**
 * How cairn itself starts an installed test agent: the command line and the environment the
 * bridge adds (its switches, and where its companion executables are).
 */
export async function testAgentLaunch(
  key: BuiltInBridgeKey,
  home = testAgentsHome(),
): Promise<{ command: string; args: string[]; env: Record<string, string> }> {
  const resolved = await resolveBridgeCommand(builtInBridge(key)!, { cairnHome: home, env: { PATH: '' } });
  if (!resolved.installed) throw new Error(resolved.message);
  return { command: resolved.command, args: [...resolved.args], env: { ...resolved.env } };
}

export interface AgentTestEnv {
  /** The agent's whole environment. */
  readonly env: Record<string, string>;
  /** Extra `initialize` params, merged over the client's own. */
  readonly initialize?: Partial<acp.InitializeRequest>;
  /** An `authenticate` to send after `initialize`, where the environment cannot do it. */
  readonly authenticate?: acp.AuthenticateRequest;
  /** The model the recipe sets, where it sets one (otherwise the agent picks its default). */
  readonly model?: string;
}

/** What every driven agent gets: PATH and locale from here, and homes of its own under `scratch`. */
async function baseEnv(scratch: string): Promise<Record<string, string>> {
  const dirs = {
    HOME: join(scratch, 'home'),
    XDG_CONFIG_HOME: join(scratch, 'home', '.config'),
    XDG_DATA_HOME: join(scratch, 'home', '.local', 'share'),
    XDG_STATE_HOME: join(scratch, 'home', '.local', 'state'),
    XDG_CACHE_HOME: join(scratch, 'home', '.cache'),
    TMPDIR: join(scratch, 'tmp'),
  };
  for (const dir of Object.values(dirs)) await mkdir(dir, { recursive: true });
  const env: Record<string, string> = {
    ...dirs,
    TMP: dirs.TMPDIR,
    TEMP: dirs.TMPDIR,
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: process.env.LANG ?? 'C.UTF-8',
    NO_BROWSER: '1',
    NO_COLOR: '1',
    CI: '1',
  };
  // npm's registry settings, for the agents that fetch packages at start (opencode's plugin).
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && /^npm_config_(registry|cafile|strict_ssl)$/i.test(name)) env[name] = value;
  }
  return env;
}

export interface AgentTestEnvOptions {
  /**
   * How codex reaches the model server: `config` (a provider in its own config.toml; the
   * default) or `gateway` (ACP: the gateway capability in `initialize`, then `authenticate`).
   */
  readonly codexVia?: 'config' | 'gateway';
}

/**
 * What a driven agent needs to talk to the fake model at `modelUrl` (no trailing slash), with its
 * homes under `scratch`.
 */
export async function agentTestEnv(
  key: BuiltInBridgeKey,
  modelUrl: string,
  scratch: string,
  options: AgentTestEnvOptions = {},
): Promise<AgentTestEnv> {
  const env = await baseEnv(scratch);
  switch (key) {
    case 'claude-code':
      return {
        env: {
          ...env,
          ANTHROPIC_BASE_URL: modelUrl,
          ANTHROPIC_API_KEY: 'sk-ant-test-key',
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
          DISABLE_ERROR_REPORTING: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          // Otherwise a "suggest the next prompt" request follows each turn, with tools.
          CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION: 'false',
        },
      };
    case 'codex': {
      const codexHome = join(scratch, 'codex-home');
      await mkdir(codexHome, { recursive: true });
      if (options.codexVia === 'gateway') {
        // No provider in the config: the client hands codex the model server through ACP.
        await writeFile(join(codexHome, 'config.toml'), 'model = "gpt-5.5"\n');
        return {
          env: { ...env, CODEX_HOME: codexHome, INITIAL_AGENT_MODE: 'read-only' },
          initialize: {
            clientCapabilities: {
              fs: { readTextFile: false, writeTextFile: false },
              terminal: false,
              auth: { _meta: { gateway: true } },
            },
          },
          authenticate: {
            methodId: 'gateway',
            _meta: {
              gateway: { baseUrl: `${modelUrl}/v1`, headers: { 'x-test': 'cairn' }, providerName: 'fake' },
            },
          },
          model: 'gpt-5.5',
        };
      }
      await writeFile(
        join(codexHome, 'config.toml'),
        [
          'model = "gpt-5.5"',
          'model_provider = "fake"',
          '',
          '[model_providers.fake]',
          'name = "Fake"',
          `base_url = "${modelUrl}/v1"`,
          'wire_api = "responses"',
          'requires_openai_auth = false',
          '',
        ].join('\n'),
      );
      return {
        env: { ...env, CODEX_HOME: codexHome, INITIAL_AGENT_MODE: 'read-only' },
        model: 'gpt-5.5',
      };
    }
    case 'gemini-cli':
      return {
        env: { ...env, GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: modelUrl },
      };
    case 'opencode': {
      return {
        env: { ...env, ...OPENCODE_QUIET, OPENCODE_CONFIG_CONTENT: openCodeConfig(modelUrl) },
        model: 'fake/scripted',
      };
    }
    case 'qwen-code': {
      await writeJson(join(env.HOME!, '.qwen', 'settings.json'), QWEN_SETTINGS);
      return {
        env: {
          ...env,
          ...QWEN_QUIET,
          OPENAI_API_KEY: 'test-key',
          OPENAI_BASE_URL: `${modelUrl}/v1`,
          OPENAI_MODEL: 'scripted',
        },
        model: 'scripted',
      };
    }
    case 'kilo': {
      // Kilo is a fork of OpenCode and reads the same configuration.
      return {
        env: { ...env, ...KILO_QUIET, KILO_CONFIG_CONTENT: openCodeConfig(modelUrl) },
        model: 'fake/scripted',
      };
    }
    case 'pi': {
      const agentDir = join(env.HOME!, '.pi', 'agent');
      await writeJson(join(agentDir, 'models.json'), {
        providers: {
          fake: {
            baseUrl: `${modelUrl}/v1`,
            api: 'openai-completions',
            apiKey: 'test-key',
            models: [{ id: 'scripted' }],
          },
        },
      });
      await writeJson(join(agentDir, 'settings.json'), PI_SETTINGS);
      return { env: { ...env, ...PI_QUIET }, model: 'fake/scripted' };
    }
    case 'copilot-cli':
      await linkCopilotPackages(env.XDG_CACHE_HOME!, testAgentsHome());
      return {
        env: {
          ...env,
          COPILOT_PROVIDER_BASE_URL: `${modelUrl}/v1`,
          COPILOT_PROVIDER_TYPE: 'openai',
          COPILOT_PROVIDER_API_KEY: 'test-key',
          COPILOT_MODEL: 'scripted',
          COPILOT_OFFLINE: 'true',
        },
        model: 'scripted',
      };
  }
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Qwen Code's settings: the OpenAI-compatible sign-in from the environment, no statistics, updates or background work. */
const QWEN_SETTINGS = {
  security: { auth: { selectedType: 'openai' } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { enableAutoUpdate: false, showSessionRecap: false },
  // Otherwise a memory-extraction subagent asks the model again after each turn, in the background.
  memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false, enableAutoSkill: false },
};

const QWEN_QUIET = { QWEN_USAGE_STATISTICS_ENABLED: '0', QWEN_TELEMETRY_ENABLED: '0' };

/** Kilo's switches for what would reach the network at start, as OpenCode's. */
const KILO_QUIET = {
  KILO_DISABLE_MODELS_FETCH: '1',
  KILO_DISABLE_AUTOUPDATE: '1',
  KILO_DISABLE_LSP_DOWNLOAD: '1',
  KILO_DISABLE_SHARE: '1',
  KILO_DISABLE_DEFAULT_PLUGINS: '1',
  KILO_DISABLE_CLAUDE_CODE: '1',
  KILO_DISABLE_EXTERNAL_SKILLS: '1',
  KILO_DISABLE_SESSION_INGEST: '1',
  KILO_DISABLE_CODEBASE_INDEXING: '1',
  KILO_PURE: '1',
};

/** pi's settings: the fake provider's model as the default. */
const PI_SETTINGS = { defaultProvider: 'fake', defaultModel: 'scripted' };

/** pi without its start-up downloads and checks; pi-acp asks npm for the latest pi, which offline fails at once. */
const PI_QUIET = {
  npm_config_offline: 'true',
  PI_OFFLINE: '1',
  PI_TELEMETRY: '0',
  PI_SKIP_VERSION_CHECK: '1',
};

/** OpenCode's switches for what would reach the network at start: model list, updates, plugins. */
const OPENCODE_QUIET = {
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_SHARE: '1',
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  OPENCODE_DISABLE_CLAUDE_CODE: '1',
  OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
  OPENCODE_PURE: '1',
};

/** An environment with no credentials at all: the sign-in path. */
export async function agentNoCredentialsEnv(key: BuiltInBridgeKey, scratch: string): Promise<AgentTestEnv> {
  const env = await baseEnv(scratch);
  switch (key) {
    case 'codex':
      await mkdir(join(scratch, 'codex-home'), { recursive: true });
      return { env: { ...env, CODEX_HOME: join(scratch, 'codex-home') }, model: 'gpt-5.5' };
    case 'opencode':
      return {
        env: {
          ...env,
          ...OPENCODE_QUIET,
          OPENCODE_CONFIG_CONTENT: JSON.stringify({
            autoupdate: false,
            share: 'disabled',
            // A provider that needs a key and has none; its address is loopback's discard port, so
            // nothing would leave the machine even with a key.
            provider: {
              anthropic: {
                options: { baseURL: 'http://127.0.0.1:9/v1' },
                models: { 'claude-sonnet-4-5': { name: 'Claude Sonnet 4.5' } },
              },
            },
            enabled_providers: ['anthropic'],
            model: 'anthropic/claude-sonnet-4-5',
            small_model: 'anthropic/claude-sonnet-4-5',
          }),
        },
        model: 'anthropic/claude-sonnet-4-5',
      };
    default:
      return { env };
  }
}

/** The scripted ACP agent (see scripted-agent.mjs for its behaviours). */
export const SCRIPTED_AGENT = fileURLToPath(new URL('./scripted-agent.mjs', import.meta.url));

/** The command line that starts the scripted agent with this Node. */
export function scriptedAgentCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: [SCRIPTED_AGENT] };
}

/** OpenCode's (and Kilo's) configuration: one provider, the fake model, asking before an edit. */
function openCodeConfig(modelUrl: string): string {
  return JSON.stringify({
    autoupdate: false,
    share: 'disabled',
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake',
        options: { baseURL: `${modelUrl}/v1`, apiKey: 'test-key' },
        models: { scripted: { name: 'Scripted' } },
      },
    },
    model: 'fake/scripted',
    small_model: 'fake/scripted',
    permission: { edit: 'ask' },
  });
}
