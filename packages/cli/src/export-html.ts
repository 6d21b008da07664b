// A session as one static HTML page that reads like the reader's timeline: prompts, replies as
// Markdown, thinking folded, tool calls with what came back, edits as the lines they took out and
// put in, and each subagent's lane folded under the main one. Everything from the transcript is
// escaped text: raw HTML in a reply is shown as characters, links keep only web addresses, images
// become their alt text (the page loads nothing), and the policy in its head refuses scripts and
// every request, allowing only the one stylesheet it embeds.
import { createHash } from 'node:crypto';
import type { TranscriptItem } from '@cairn/protocol';
import { Marked } from 'marked';

type Fields = Record<string, unknown>;

export const escapeHtml = (s: string): string =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

const SAFE_HREF = /^(?:https?:|mailto:)/i;

const markdown = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html: (token) => escapeHtml(token.text),
    link({ href, tokens }) {
      const text = this.parser.parseInline(tokens);
      // A relative or script address has nowhere to go from a file; it stays text.
      if (!SAFE_HREF.test(href)) return text;
      return `<a href="${escapeHtml(href)}" rel="noreferrer noopener">${text}</a>`;
    },
    image: ({ text }) => `<span class="image-alt">[image: ${escapeHtml(text)}]</span>`,
  },
});

const STYLE = `
body{font:14px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f;background:#fff}
header{border-bottom:1px solid #ddd;margin-bottom:1rem}
h1{font-size:1.2rem;margin:0 0 .3rem}
.meta{color:#666;font-size:.85rem}
.item{margin:.6rem 0;padding:.5rem .7rem;border-left:3px solid #ccc;border-radius:4px;background:#fafafa}
.item .head{font-size:.75rem;color:#666;margin-bottom:.2rem}
.prompt{border-color:#2f6feb;background:#eef4ff}
.reply{border-color:#2da44e;background:#fff}
.thinking{border-color:#a371f7}
.tool{border-color:#bf8700}
.system,.hook,.notice{border-color:#999;color:#555;font-size:.85rem}
pre{white-space:pre-wrap;word-break:break-word;margin:.3rem 0;font:12px/1.45 ui-monospace,monospace;background:#f3f3f3;padding:.4rem;border-radius:3px;max-height:40rem;overflow:auto}
.del{background:#ffebe9}.ins{background:#e6ffec}
details.lane{margin:1rem 0;padding:.4rem .7rem;border:1px dashed #bbb;border-radius:6px}
details>summary{cursor:pointer;color:#444}
.reply table{border-collapse:collapse}.reply td,.reply th{border:1px solid #ccc;padding:2px 6px}
@media (prefers-color-scheme:dark){body{background:#111;color:#ddd}.item{background:#1a1a1a}.prompt{background:#14213d}.reply{background:#111}pre{background:#222}.del{background:#3d1418}.ins{background:#12361f}}
`;

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const pre = (s: string, cls = ''): string => `<pre${cls ? ` class="${cls}"` : ''}>${escapeHtml(s)}</pre>`;
const json = (v: unknown): string => JSON.stringify(v, null, 2) ?? '';

/** What a tool call did, shown as the reader shows it: a command, an edit as lines out and in, else its input. */
function toolUse(f: Fields): string {
  const input = (f.input ?? {}) as Fields;
  const command = text(f.command) ?? text(input.command);
  if (command !== undefined) return pre(`$ ${command}`);
  const path = text(f.file_path) ?? text(input.file_path) ?? text(input.filePath) ?? text(input.path);
  const oldText = text(input.old_string) ?? text(f.old_string);
  const newText = text(input.new_string) ?? text(f.new_string);
  if (oldText !== undefined || newText !== undefined) {
    return `${path ? pre(path) : ''}${oldText ? pre(oldText, 'del') : ''}${newText ? pre(newText, 'ins') : ''}`;
  }
  const content = text(input.content);
  if (path !== undefined && content !== undefined) return `${pre(path)}${pre(content, 'ins')}`;
  return pre(json(f.input ?? {}));
}

/** What came back: output streams and content as text, anything else as its JSON. */
function toolResult(f: Fields): string {
  const parts: string[] = [];
  for (const key of ['stdout', 'stderr', 'content', 'text']) {
    const v = text(f[key]);
    if (v !== undefined) parts.push(pre(v));
  }
  if (parts.length === 0 && f.result !== undefined)
    parts.push(pre(typeof f.result === 'string' ? f.result : json(f.result)));
  return parts.join('');
}

function itemBody(item: TranscriptItem): { cls: string; body: string } {
  const f = item as unknown as Fields;
  const type = item.type;
  const images = Array.isArray(f.images) ? f.images.filter((n): n is string => typeof n === 'string') : [];
  const notes = images.length > 0 ? pre(images.join('\n')) : '';
  if (type.startsWith('message:') && type.endsWith(':in'))
    return { cls: 'prompt', body: `${pre(text(f.text) ?? text(f.prompt) ?? '')}${notes}` };
  if (type.startsWith('message:') && type.endsWith(':out'))
    return { cls: 'reply', body: markdown.parse(text(f.text) ?? '') as string };
  if (type === 'thinking')
    return {
      cls: 'thinking',
      body: `<details><summary>thinking</summary>${pre(text(f.text) ?? '')}</details>`,
    };
  if (type.startsWith('tool:')) {
    const body = f.role === 'result' ? toolResult(f) : toolUse(f);
    return { cls: 'tool', body: body || pre(json(f)) };
  }
  const root = type.split(':')[0] ?? 'system';
  const headline = text(f.text) ?? text(f.content) ?? text(f.hook_name);
  return { cls: root, body: headline !== undefined ? pre(headline) : pre(json(f)) };
}

function itemHtml(item: TranscriptItem): string {
  const { cls, body } = itemBody(item);
  const f = item as unknown as Fields;
  const role = f.role === 'use' ? ' →' : f.role === 'result' ? ' ←' : '';
  const at =
    typeof item.at === 'number' ? new Date(item.at).toISOString().replace('T', ' ').slice(0, 19) : '';
  return `<article class="item ${cls}" data-uuid="${escapeHtml(item.uuid)}" data-type="${escapeHtml(type(item))}"><div class="head">${escapeHtml(`${at} ${type(item)}${role}`)}</div>${body}</article>`;
}
const type = (item: TranscriptItem): string => item.type;

export interface HtmlLane {
  readonly agentId: string;
  readonly label?: string | undefined;
  readonly items: readonly TranscriptItem[];
}

export interface HtmlExport {
  readonly agent: string;
  readonly sid: string;
  readonly title?: string | undefined;
  readonly cwd?: string | undefined;
  readonly items: readonly TranscriptItem[];
  readonly lanes: readonly HtmlLane[];
  /** A line saying what was redacted, or that nothing was. */
  readonly redaction: string;
}

/** The page, whole. */
export function renderHtml(e: HtmlExport): string {
  const styleHash = createHash('sha256').update(STYLE).digest('base64');
  const csp = `default-src 'none'; style-src 'sha256-${styleHash}'; img-src 'none'; form-action 'none'; base-uri 'none'`;
  const lanes = e.lanes.map(
    (l) =>
      `<details class="lane" data-agent-id="${escapeHtml(l.agentId)}"><summary>${escapeHtml(`subagent ${l.agentId}${l.label ? `: ${l.label}` : ''} (${l.items.length} items)`)}</summary>${l.items.map(itemHtml).join('\n')}</details>`,
  );
  const title = e.title ?? `${e.agent} ${e.sid}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style></head>
<body><header><h1>${escapeHtml(title)}</h1>
<div class="meta">${escapeHtml(`${e.agent} · ${e.sid}${e.cwd ? ` · ${e.cwd}` : ''} · ${e.redaction}`)}</div></header>
<main>
${e.items.map(itemHtml).join('\n')}
${lanes.join('\n')}
</main></body></html>
`;
}
