// Assistant text as Markdown: marked turns it into HTML, DOMPurify keeps only inert markup, and the
// result is handed over as DOM nodes, never as a string to assign. Transcript text is untrusted.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

// Raw HTML inside the Markdown is shown as the text it is, not parsed: a transcript quoting
// `<img onerror=…>` means the characters, and nothing of it should reach an HTML parser as markup.
const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html: (token) => escapeHtml(token.text),
  },
});

// What a message may contain. Forms, media and styles have no place in a transcript, and the page's
// Content-Security-Policy would refuse inline styles anyway.
const FORBID_TAGS = [
  'style',
  'img',
  'video',
  'audio',
  'source',
  'picture',
  'form',
  'input',
  'button',
  'textarea',
  'select',
  'option',
  'iframe',
  'object',
  'embed',
  'svg',
  'math',
];
const FORBID_ATTR = ['style', 'class', 'id', 'name', 'srcset'];
const LANGUAGE_CLASS = /^language-[\w+#.-]{1,40}$/;

let hooked = false;
function hookLinks(): void {
  if (hooked) return;
  hooked = true;
  // Links leave the page in a new tab and tell the target nothing about where they came from.
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'A') {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
  // A fenced block keeps the one class that names its language, for the highlighter; every other
  // class is dropped.
  DOMPurify.addHook('uponSanitizeAttribute', (node, data) => {
    if (node.nodeName === 'CODE' && data.attrName === 'class' && LANGUAGE_CLASS.test(data.attrValue))
      data.forceKeepAttr = true;
  });
}

const cache = new Map<string, DocumentFragment>();
const CACHE_MAX = 400;

/** Sanitized DOM for a Markdown text; a fresh copy on every call, so callers may insert it. */
export function markdownFragment(text: string): DocumentFragment {
  return sanitizedMarkdown(text).cloneNode(true) as DocumentFragment;
}

/**
 * Makes the text's sanitized DOM ahead of need (in idle time, for rows about to scroll into view),
 * so that drawing it later only copies it.
 */
export function warmMarkdown(text: string): void {
  sanitizedMarkdown(text);
}

function sanitizedMarkdown(text: string): DocumentFragment {
  let frag = cache.get(text);
  if (!frag) {
    hookLinks();
    const html = marked.parse(text) as string;
    frag = DOMPurify.sanitize(html, {
      RETURN_DOM_FRAGMENT: true,
      FORBID_TAGS,
      FORBID_ATTR,
      ALLOW_DATA_ATTR: false,
      ALLOWED_URI_REGEXP: /^(?:https?|mailto):/i,
    });
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
    cache.set(text, frag);
  }
  return frag;
}
