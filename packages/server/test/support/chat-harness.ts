// The chat's own parts over a socket, without the rest of the daemon: the chat service on an HTTP
// server of its own, and the drive side in process with a workstation whose session limits a test
// sets (an agent that never answers can then fail its start in a second, not a minute). Tabs are
// the ones of ./chat.ts; the chat service is at hand, so a test can hand it messages in one tick.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { nodePlatform } from '@cairn/transcript';
import { ChatService } from '../../src/chat/chat-service.js';
import { LOCAL_WORKSTATION, startLocalDrive } from '../../src/drive/local-drive.js';
import { onCleanup, openTab } from './chat.js';

export interface HarnessOptions {
  readonly cairnHome: string;
  /** The folder the chats work in. */
  readonly project: string;
  /** The environment the workstation hands its agents. */
  readonly env: Record<string, string>;
  readonly limits?: { openMs?: number; turnMs?: number; permissionMs?: number };
  /** Agent keys to wait for in the workstation's roster. */
  readonly agents: readonly string[];
}

export async function chatHarness(options: HarnessOptions) {
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);
  const drive = await startLocalDrive({
    cairnHome: options.cairnHome,
    env: options.env,
    log,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const chat = new ChatService({
    storePath: join(options.cairnHome, 'chat.sqlite'),
    wire: drive.server,
    workstation: LOCAL_WORKSTATION,
    platform: nodePlatform({ env: options.env, homeDir: options.env.HOME ?? options.cairnHome }),
    log,
    checkEvents: true,
  });
  const http = createServer((req, res) => {
    void chat.handleApi(req, res, new URL(req.url ?? '/', 'http://127.0.0.1')).then((answered) => {
      if (!answered) res.writeHead(404).end();
    });
  });
  http.on('upgrade', (req, socket, head) => chat.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  onCleanup(async () => {
    chat.close();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
    await drive.close();
  });
  for (let i = 0; i < 100; i++) {
    const roster = drive.server.roster(LOCAL_WORKSTATION).map((b) => b.key);
    if (options.agents.every((a) => roster.includes(a))) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const project = chat.store.project(options.project);
  return {
    chat,
    lines,
    /** A new chat with `agent` in the project; its id. */
    newChat: (agent: string) => chat.store.createSession(project.id, agent, null).id,
    tab: (sessionId: string) => openTab(`ws://127.0.0.1:${port}/chat?session=${sessionId}`),
  };
}
