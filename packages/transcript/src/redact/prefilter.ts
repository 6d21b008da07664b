// A cheap first look that rules out most of a dump's text before the rules run. Every rule, ours
// and the rule set's, can only match where one of a few things stands: a known prefix (`ghp_`,
// `sk-`, `AKIA…`), a key word right before `:` or `=`, `user:password@` after `://`, or a literal
// such as `PRIVATE KEY`. One pattern looks for all of them at once; a text with none of them holds
// nothing any rule reports, so it is not scanned. Each part is anchored on a character that is rare
// in prose (`_`, `-`, `:`, `=`, `.`) and checks what precedes it only there, which keeps the scan
// to a few nanoseconds a character. The parts are wider than the rules, never narrower: this only
// decides what is scanned, never what is found.

const anyCase = (word: string): string =>
  word.replace(/[a-z]/gi, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`).replaceAll('.', '\\.');

// The key words of our own key-position rule, and the AWS rule's key, in any case.
const KEY_WORDS = [
  anyCase('secret'),
  anyCase('token'),
  `${anyCase('passw')}(?:${anyCase('or')})?${anyCase('d')}`,
  anyCase('pwd'),
  `(?:${anyCase('api')}|${anyCase('access')}|${anyCase('private')}|${anyCase('auth')})[_-]?${anyCase('key')}`,
  `${anyCase('credential')}s?`,
].join('|');

const PARTS = [
  // Prefixes ending in `_` or `-`: npm, Linear, GitHub, 1Password, Hugging Face, Shopify, Slack,
  // GitLab; Stripe's only before `live_` or `test_`, OpenAI's and Anthropic's only before the 40
  // characters of key every one of their formats has at least.
  '[_-](?<=npm_|lin_api_|gh[pousr]_|github_pat_|ops_|hf_|shp(?:pa|ca|at|ss)_|xox[bpaor]-|xapp-|glpat-)',
  '_(?<=[sr]k_)(?=live_|test_)',
  '-(?<=sk-)(?=[\\w-]{40})',
  // A key word before `:`, `=`, `:=` or `=>` and a value of six characters at least, which is all
  // our key-position rule reads; and the AWS secret and account keys, whose `:` or `=` may follow a
  // line break.
  `[:=](?<=(?:${KEY_WORDS})["']?[ \\t]*[:=])(?=[=>]?[ \\t]*["'\`]?[^\\s"'\`,;{}()[\\]<>]{6})`,
  `[:=](?<=(?:ACCOUNT|[aA]ccount)_?(?:ID|[iI]d)?["']?\\s*[:=]|(?:SECRET|[sS]ecret)_?(?:ACCESS|[aA]ccess)_?(?:KEY|[kK]ey)["']?\\s*[:=])`,
  // `scheme://user:password@` (basic auth, database strings, our URL rule) and GitHub's x-oauth URL.
  ':(?=\\/\\/[^:/\\s]{1,256}:[^@\\s/]{1,256}@|x-oauth-basic@)',
  // Slack's webhook host, SendGrid's `SG.`, a JSON web token's first dot.
  `\\.(?<=${anyCase('hooks')}\\.)(?=${anyCase('slack.')})|\\.(?<=SG\\.|eyJ[\\w-]{8,}\\.)`,
  'AIza',
  'PRIVATE KEY',
  '(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}',
  '(?:Bearer|token)[ \\t]+[\\w.~+/=-]{20}',
];

const MAY_HOLD_SECRET = new RegExp(PARTS.join('|'));

/** Whether any rule could find a secret in `text`; false means none will. */
export const mayHoldSecret = (text: string): boolean => MAY_HOLD_SECRET.test(text);

/**
 * The rule set's scanners the first look was written against. A rule outside this list (a newer
 * rule set) turns the first look off, so a new kind of secret is never skipped unseen.
 */
export const RULES_LOOKED_FOR: ReadonlySet<string> = new Set([
  '@secretlint/secretlint-rule-aws',
  // Reads only `.p12` and `.json` files; a dump's text is neither.
  '@secretlint/secretlint-rule-gcp',
  '@secretlint/secretlint-rule-npm',
  '@secretlint/secretlint-rule-slack',
  '@secretlint/secretlint-rule-basicauth',
  '@secretlint/secretlint-rule-openai',
  '@secretlint/secretlint-rule-anthropic',
  '@secretlint/secretlint-rule-linear',
  '@secretlint/secretlint-rule-privatekey',
  '@secretlint/secretlint-rule-sendgrid',
  '@secretlint/secretlint-rule-shopify',
  '@secretlint/secretlint-rule-github',
  '@secretlint/secretlint-rule-1password',
  '@secretlint/secretlint-rule-database-connection-string',
]);
