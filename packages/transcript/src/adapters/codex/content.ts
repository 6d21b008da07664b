// The text of response items, and which user messages Codex wrote itself.
import { BARE_IMAGE_NOTE, fromDataUrl, imageNote } from '../../items/images.js';
import { isObject, str } from './records.js';

export interface MessageText {
  text: string;
  images: number;
  /** A short note per image (`[image: image/png, 34 KB]`), in order, when there are any. */
  imageNotes?: string[];
}

/** The note of an image Codex keeps as a URL: by type and size when it is a `data:` URL. */
export function urlImageNote(url: unknown): string {
  const image = typeof url === 'string' ? fromDataUrl(url) : undefined;
  return image ? imageNote(image) : BARE_IMAGE_NOTE;
}

// Codex wraps each attached image in text parts of its own around the image part.
const IMAGE_WRAPPER = /^<\/?image\b[^>]*>$/;

/** The text parts of a message's content, joined by newlines; image parts are counted. */
export function messageText(content: unknown): MessageText {
  if (typeof content === 'string') return { text: content, images: 0 };
  if (!Array.isArray(content)) return { text: '', images: 0 };
  const parts: string[] = [];
  const imageNotes: string[] = [];
  for (const part of content) {
    if (!isObject(part)) continue;
    const text = str(part.text);
    if (text !== undefined) {
      if (!IMAGE_WRAPPER.test(text.trim())) parts.push(text);
    } else if (part.type === 'input_image' || part.type === 'image')
      imageNotes.push(urlImageNote(part.image_url));
  }
  const joined = parts.join('\n');
  return imageNotes.length > 0
    ? { text: joined, images: imageNotes.length, imageNotes }
    : { text: joined, images: 0 };
}

// Context Codex injects as user messages, by the opening of the text.
const INJECTED: readonly (readonly [string, string])[] = [
  ['<environment_context', 'environment_context'],
  ['<user_instructions', 'user_instructions'],
  ['# AGENTS.md instructions', 'agents_md'],
  ['<INSTRUCTIONS>', 'instructions'],
  ['<permissions instructions', 'permissions'],
  ['<turn_aborted', 'interrupt'],
  ['<subagent_notification', 'subagent_notification'],
  ['<user_shell_command', 'command'],
  ['<skill', 'skill'],
  ['<collaboration_mode', 'collaboration_mode'],
];

// A message that is nothing but one tagged block is context, whatever the tag.
const WHOLE_TAGGED_BLOCK = /^<([A-Za-z_][\w-]*)\b[^>]*>[\s\S]*<\/\1>$/;

/** The origin of a user message Codex injected, judged by its text; undefined for anything else. */
export function injectedOrigin(text: string): string | undefined {
  const t = text.trim();
  for (const [prefix, origin] of INJECTED) if (t.startsWith(prefix)) return origin;
  const tagged = WHOLE_TAGGED_BLOCK.exec(t);
  return tagged ? tagged[1] : undefined;
}

/** The summary text of a reasoning item, else its raw content text. */
export function reasoningText(payload: Record<string, unknown>): string {
  const pick = (list: unknown): string[] =>
    Array.isArray(list)
      ? list.flatMap((p) => (isObject(p) && typeof p.text === 'string' ? [p.text] : []))
      : [];
  const summary = pick(payload.summary);
  if (summary.length > 0) return summary.join('\n\n');
  return pick(payload.content).join('\n\n');
}
