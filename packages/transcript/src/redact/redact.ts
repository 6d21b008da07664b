// The redactor: finds secrets in text and puts a marker naming their kind in their place.
// Provider keys, tokens, private keys and connection strings come from secretlint's recommended
// rule set, which is kept up as providers change their formats; a few rules of our own add what a
// transcript holds that a repository scan does not look for (values in `.env` and config key
// positions, bearer headers, a few common key formats the set leaves out). The set's rules are run
// here on their own interface, without secretlint's file-linting engine, which a dump has no use for.
// Most of a dump never reaches the rules: a first look (prefilter.ts) rules out text none could match.
import type { SecretLintRuleContext, SecretLintRuleCreator, SecretLintSourceCode } from '@secretlint/types';
import { mayHoldSecret, RULES_LOOKED_FOR } from './prefilter.js';

/** Counts of secrets redacted, by kind (`GitHub token`, `password`, …). */
export type RedactionCounts = Record<string, number>;

export interface RedactedTexts {
  readonly texts: string[];
  readonly counts: RedactionCounts;
}

interface Span {
  start: number;
  end: number;
  kind: string;
}

export const redactionMarker = (kind: string): string => `⟨redacted: ${kind}⟩`;

// secretlint's message ids, as a person names the secret.
const KIND_OF_MESSAGE: Record<string, string> = {
  ANTHROPIC_API_KEY: 'Anthropic API key',
  AWSAccessKeyID: 'AWS access key',
  AWSAccountID: 'AWS account id',
  AWSSecretAccessKey: 'AWS secret access key',
  BasicAuth: 'password in URL',
  GITHUB_TOKEN: 'GitHub token',
  IncomingWebhook: 'Slack webhook',
  LINEAR_API_TOKEN: 'Linear API key',
  MongoDBConnection: 'database password',
  MySQLConnection: 'database password',
  PostgreSQLConnection: 'database password',
  NPM_ACCESS_TOKEN: 'npm token',
  Npmrc_authToken: 'npm token',
  PackageJSON_xOauthToken: 'GitHub token',
  OPENAI_TOKEN: 'OpenAI API key',
  OPS_TOKEN: '1Password token',
  PrivateKey: 'private key',
  PrivateKeyJSON: 'private key',
  PrivateKeyP12: 'private key',
  SENDGRID_KEY: 'SendGrid API key',
  SHOPIFY_KEY: 'Shopify token',
  SLACK_TOKEN: 'Slack token',
};

// Formats the rule set does not cover, each a documented, fixed prefix and length.
const FORMATS: ReadonlyArray<{ kind: string; pattern: RegExp }> = [
  { kind: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { kind: 'Stripe key', pattern: /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,99}\b/g },
  { kind: 'Hugging Face token', pattern: /\bhf_[A-Za-z]{34}\b/g },
  {
    kind: 'OpenAI API key',
    pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{40,200}(?![A-Za-z0-9_-])/g,
  },
  { kind: 'GitLab token', pattern: /\bglpat-[0-9A-Za-z_-]{20}\b/g },
  { kind: 'JSON web token', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/g },
  {
    kind: 'private key',
    pattern:
      /-----BEGIN[ A-Z]*PRIVATE KEY(?: BLOCK)?-----[\s\S]{16,12000}?-----END[ A-Z]*PRIVATE KEY(?: BLOCK)?-----/g,
  },
];

// A value in a key position: `API_TOKEN=…`, `"client_secret": "…"`, `password: …`. The secret word
// must end the key, so `tokenizer` or `max_tokens` are not taken for one. The value is read where the
// key ends, with a sticky pattern, so the scan itself stays one cheap pass.
const KEY_WORD =
  /(secret|token|passw(?:or)?d|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|credentials?)["']?[ \t]*(?::=|=>|:|=)/gi;
const KEY_VALUE = /[ \t]*(["'`]?)([^\s"'`,;{}()[\]<>]{6,512})/y;
// `user:password@` after a URL's scheme, whatever the scheme and path.
const URL_CREDENTIAL = /:\/\/[^:/@\s]{1,256}:([^@\s/]{3,200})@/g;
const BEARER = /\b(?:Bearer|token)[ \t]+([A-Za-z0-9._~+/=-]{20,})/g;
// `config.apiKey`, `process.env.TOKEN`, `${SECRET}`: a reference to a secret, not one.
const REFERENCE = /^(?:[A-Za-z_$][\w$]*\.)+[A-Za-z_$][\w$]*$|^\$|^%|^process\b|^os\.|^env\b/;
const PLACEHOLDER =
  /^(?:x+|\*+|\.+|changeme|redacted|example|placeholder|your[_-].*|<.*>|null|none|undefined|true|false)$/i;

/** Bits per character: a key's random body scores far above a word or an identifier. */
function entropy(s: string): number {
  const seen = new Map<string, number>();
  for (const c of s) seen.set(c, (seen.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of seen.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

function classes(s: string): number {
  return (
    (/[a-z]/.test(s) ? 1 : 0) +
    (/[A-Z]/.test(s) ? 1 : 0) +
    (/[0-9]/.test(s) ? 1 : 0) +
    (/[^A-Za-z0-9]/.test(s) ? 1 : 0)
  );
}

function keyKind(word: string): string {
  const w = word.toLowerCase();
  if (w.startsWith('passw') || w === 'pwd') return 'password';
  if (w.includes('key')) return 'API key';
  if (w === 'token') return 'token';
  return 'secret';
}

/** Whether a value standing in a key position looks like a secret rather than a name or a number. */
function secretValue(value: string, kind: string): boolean {
  if (PLACEHOLDER.test(value) || REFERENCE.test(value)) return false;
  if (/^[0-9.:-]+$/.test(value)) return false;
  if (kind === 'password') return value.length >= 6 && classes(value) >= 2;
  return value.length >= 16 && classes(value) >= 2 && entropy(value) >= 3.2;
}

function ownSpans(content: string, out: Span[]): void {
  for (const { kind, pattern } of FORMATS)
    for (const m of content.matchAll(pattern)) out.push({ start: m.index, end: m.index + m[0].length, kind });
  for (const m of content.matchAll(KEY_WORD)) {
    KEY_VALUE.lastIndex = m.index + m[0].length;
    const v = KEY_VALUE.exec(content);
    const value = v?.[2];
    const kind = keyKind(m[1] ?? '');
    if (!v || !value || !secretValue(value, kind)) continue;
    const end = KEY_VALUE.lastIndex;
    out.push({ start: end - value.length, end, kind });
  }
  for (const m of content.matchAll(URL_CREDENTIAL)) {
    const value = m[1] ?? '';
    if (PLACEHOLDER.test(value) || REFERENCE.test(value) || /^\$\{?\w+\}?$/.test(value)) continue;
    const end = m.index + m[0].length - 1;
    out.push({ start: end - value.length, end, kind: 'password in URL' });
  }
  for (const m of content.matchAll(BEARER)) {
    const value = m[1] ?? '';
    if (classes(value) < 2 || entropy(value) < 3.2) continue;
    const end = m.index + m[0].length;
    out.push({ start: end - value.length, end, kind: 'bearer token' });
  }
}

// A credential in a URL is reported whole; only its password is the secret.
function narrowToPassword(content: string, span: Span): Span {
  const text = content.slice(span.start, span.end);
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:([^@\s]+)@/i.exec(text);
  if (!m?.[1]) return span;
  const start = span.start + text.indexOf(`:${m[1]}@`) + 1;
  return { start, end: start + m[1].length, kind: span.kind };
}

// Options per rule: the AWS rule looks for a lone access key id only when asked.
const RULE_OPTIONS: Record<string, unknown> = {
  '@secretlint/secretlint-rule-aws': { enableIDScanRule: true },
};

// This rule only marks text that a `secretlint-disable` comment asks to leave alone, which a dump
// never honours; and it needs line positions our source does not give, so a text naming the
// comment made the whole redaction fail.
const COMMENT_FILTER = '@secretlint/secretlint-rule-filter-comments';

interface RuleSet {
  readonly scanners: SecretLintRuleCreator<unknown>[];
  /** Whether the first look (prefilter.ts) knows every scanner, and may rule texts out. */
  readonly lookFirst: boolean;
}

let ruleSet: Promise<RuleSet> | undefined;
// Loaded on first use, so a command that never redacts does not load the rule set.
const loadRuleSet = (): Promise<RuleSet> => {
  ruleSet ??= import('@secretlint/secretlint-rule-preset-recommend').then((m) => {
    const scanners = (m.rules as SecretLintRuleCreator<unknown>[]).filter(
      (r) => r.meta.type === 'scanner' && r.meta.id !== COMMENT_FILTER,
    );
    return { scanners, lookFirst: scanners.every((r) => RULES_LOOKED_FOR.has(r.meta.id)) };
  });
  return ruleSet;
};

const keepAll = (): boolean => true;

/**
 * Whether a text needs scanning: the first look, or, if the loaded rule set has a scanner the
 * first look does not know, a test that keeps every text.
 */
export async function secretFilter(): Promise<(text: string) => boolean> {
  return (await loadRuleSet()).lookFirst ? mayHoldSecret : keepAll;
}

async function ruleSetSpans(content: string, out: Span[]): Promise<void> {
  const source = {
    content,
    filePath: undefined,
    physicalFilePath: undefined,
    contentType: 'text',
    ext: '.txt',
    hasBOM: false,
  } as unknown as SecretLintSourceCode;
  for (const rule of (await loadRuleSet()).scanners) {
    const context: SecretLintRuleContext = {
      sharedOptions: {},
      // Only the message id is read back: it names the kind of secret.
      createTranslator: (() => (messageId: string) => ({ message: messageId, messageId })) as never,
      report: ({ message, range }) => {
        const kind = KIND_OF_MESSAGE[message.messageId] ?? message.messageId;
        const span = { start: range[0], end: range[1], kind };
        out.push(
          kind === 'password in URL' || kind === 'database password' ? narrowToPassword(content, span) : span,
        );
      },
      ignore: () => {},
    };
    await rule.create(context, RULE_OPTIONS[rule.meta.id] ?? {}).file?.(source);
  }
}

/** Spans sorted and made disjoint; where two overlap the earlier-starting, longer one is kept. */
function disjoint(spans: Span[]): Span[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Span[] = [];
  for (const s of spans) {
    const last = kept[kept.length - 1];
    if (last && s.start < last.end) continue;
    kept.push(s);
  }
  return kept;
}

/** Where secrets are in `content`, disjoint and in order. */
export async function findSecrets(
  content: string,
): Promise<Array<{ start: number; end: number; kind: string }>> {
  const spans: Span[] = [];
  await ruleSetSpans(content, spans);
  ownSpans(content, spans);
  return disjoint(spans);
}

// Joined texts are kept apart by a blank line, which no rule matches across.
const SEPARATOR = '\n\n';
// Nothing shorter than this can hold a secret any rule reports.
export const SHORTEST = 8;
// A whole string that is an id or a time (most of a dump's strings) holds no secret.
const BARE_ID =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d)?)$/i;
const MARKER = /⟨redacted: ([^⟩]+)⟩/g;
const NOT_SCANNED = -1;

/**
 * The texts with every secret replaced by a marker naming its kind. Those that may hold one are
 * scanned as one content, so the rule set runs once however many strings a dump holds.
 */
export async function redactTexts(texts: readonly string[]): Promise<RedactedTexts> {
  const mayHold = await secretFilter();
  const scanned: number[] = [];
  const starts: number[] = [];
  let length = 0;
  const parts: string[] = [];
  // A text met twice (a repeated path, an id carried by several items) is looked at once: the
  // index of its first occurrence if it is scanned, NOT_SCANNED if the first look ruled it out.
  const seen = new Map<string, number>();
  const again: Array<[index: number, first: number]> = [];
  for (let i = 0; i < texts.length; i++) {
    const t = texts[i] as string;
    if (t.length < SHORTEST) continue;
    const first = seen.get(t);
    if (first !== undefined) {
      if (first !== NOT_SCANNED) again.push([i, first]);
      continue;
    }
    if (!mayHold(t) || BARE_ID.test(t)) {
      seen.set(t, NOT_SCANNED);
      continue;
    }
    seen.set(t, i);
    scanned.push(i);
    starts.push(length);
    parts.push(t);
    length += t.length + SEPARATOR.length;
  }
  const out = [...texts];
  const counts: RedactionCounts = {};
  if (parts.length === 0) return { texts: out, counts };
  const content = parts.join(SEPARATOR);
  const spans = await findSecrets(content);

  // Spans are in order, so one pass over the texts places each.
  let at = 0;
  let pieces: string[] = [];
  let cursor = 0;
  let current = -1;
  const finish = (): void => {
    if (current < 0) return;
    const text = parts[current] ?? '';
    pieces.push(text.slice(cursor));
    out[scanned[current] ?? 0] = pieces.join('');
  };
  for (const span of spans) {
    while (at + 1 < starts.length && (starts[at + 1] ?? 0) <= span.start) at++;
    if (at !== current) {
      finish();
      current = at;
      pieces = [];
      cursor = 0;
    }
    const base = starts[at] ?? 0;
    const text = parts[at] ?? '';
    const start = span.start - base;
    const end = Math.min(span.end - base, text.length);
    if (start < cursor || start >= end) continue;
    pieces.push(text.slice(cursor, start), redactionMarker(span.kind));
    cursor = end;
    counts[span.kind] = (counts[span.kind] ?? 0) + 1;
  }
  finish();
  for (const [i, first] of again) {
    const text = out[first] ?? '';
    out[i] = text;
    if (text !== texts[first])
      for (const m of text.matchAll(MARKER)) counts[m[1] ?? ''] = (counts[m[1] ?? ''] ?? 0) + 1;
  }
  return { texts: out, counts };
}

/** One text, redacted. */
export async function redactText(text: string): Promise<{ text: string; counts: RedactionCounts }> {
  const r = await redactTexts([text]);
  return { text: r.texts[0] ?? text, counts: r.counts };
}

/** Every string in a JSON value, in the order `replaceStrings` visits them. */
export function collectStrings(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) collectStrings(v, out);
  else if (value !== null && typeof value === 'object')
    for (const v of Object.values(value as Record<string, unknown>)) collectStrings(v, out);
}

// Visits strings in the order collectStrings met them, copying only what holds a changed one,
// so a transcript the daemon keeps in memory is never altered.
export function replaceStrings(value: unknown, next: () => string): unknown {
  if (typeof value === 'string') return next();
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((v, i) => {
      const r = replaceStrings(v, next);
      if (r !== v) {
        copy ??= [...value];
        copy[i] = r;
      }
    });
    return copy ?? value;
  }
  if (value !== null && typeof value === 'object') {
    let copy: Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const r = replaceStrings(v, next);
      if (r !== v) {
        copy ??= { ...(value as Record<string, unknown>) };
        copy[k] = r;
      }
    }
    return copy ?? value;
  }
  return value;
}

/** A JSON value (a dump file, an item) with every string in it redacted. */
export async function redactValue<T>(value: T): Promise<{ value: T; counts: RedactionCounts }> {
  const strings: string[] = [];
  collectStrings(value, strings);
  const r = await redactTexts(strings);
  if (Object.keys(r.counts).length === 0) return { value, counts: r.counts };
  let i = 0;
  const replaced = replaceStrings(value, () => r.texts[i++] ?? '') as T;
  return { value: replaced, counts: r.counts };
}

/** `3 GitHub token, 1 password`, most first; empty when nothing was redacted. */
export function describeRedactions(counts: RedactionCounts): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
}
