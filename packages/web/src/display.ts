// Transcript text made safe to look at. Characters that change how other text is drawn — bidi
// controls that reorder a path (`file\u202Egnp.exe` reads as "fileexe.png"), zero-width and other
// invisible ones, control characters — are shown as a visible ⟨U+XXXX⟩ instead; terminal escape
// sequences (colours, cursor moves) in command output are removed, since a page cannot play them.

// CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \), and two-character escapes (ESC + one byte).
// The C1 form of CSI (U+009B) is matched too.
const ANSI =
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[ -/]*[0-~]/g;

// Bidi embeddings, overrides, isolates and marks; zero-width characters; the byte order mark;
// C0 controls other than tab, line feed and carriage return; DEL and C1 controls.
const INVISIBLE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

const codePoint = (c: string): string => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`;

// The same set, to test for (no global flag, so no state between calls). Escapes start with ESC,
// which is in it.
const ANY_INVISIBLE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;

/** `text` as it should be drawn: escape sequences removed, invisible characters made visible. */
export function shownText(text: string): string {
  if (!ANY_INVISIBLE.test(text)) return text;
  return text.replace(ANSI, '').replace(INVISIBLE, codePoint);
}

// Fields that name things rather than say them; they are kept exactly as received.
const NAME_FIELDS = /^(uuid|type|role|source|parent_item|result_item|reply_to)$|(^|_)id$/;

/** An item with every string it shows passed through shownText; names and ids are kept. */
export function shownItem<T extends object>(item: T): T {
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    const shown = NAME_FIELDS.test(key) ? value : shownValue(value, 0);
    if (shown !== value) changed = true;
    out[key] = shown;
  }
  return changed ? (out as T) : item;
}

function shownValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return shownText(value);
  // Values from the server are bounded in depth; this bound only guards the recursion.
  if (depth > 200 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const s = shownValue(v, depth + 1);
      if (s !== v) changed = true;
      return s;
    });
    return changed ? out : value;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const s = shownValue(v, depth + 1);
    if (s !== v) changed = true;
    out[k] = s;
  }
  return changed ? out : value;
}
