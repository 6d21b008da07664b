// The redactor's labelled set: secrets of real shapes (made up here from a seeded random, never real
// keys) set in the sentences a transcript holds them in, and near-misses a transcript is full of
// (hashes, uuids, base64 images, git SHAs, identifiers named like secrets).

// A small deterministic generator, so a failure names the same strings every run.
let seed = 0x2f6b1c3d;
export function rand(): number {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x80000000;
}
export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const UPPER_NUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
export const HEX = '0123456789abcdef';
export const B64 = `${ALNUM}+/`;
export const pick = (chars: string, n: number): string =>
  Array.from({ length: n }, () => chars[Math.floor(rand() * chars.length)]).join('');

export interface Secret {
  /** The text as a transcript would hold it. */
  text: string;
  /** The secret in it, which must not survive. */
  secret: string;
}

export function secrets(): Secret[] {
  const out: Secret[] = [];
  const add = (make: (s: string) => string, secret: string): void => {
    out.push({ text: make(secret), secret });
  };
  for (let i = 0; i < 5; i++) {
    add((s) => `export AWS_ACCESS_KEY_ID=${s}`, `AKIA${pick(UPPER_NUM, 16)}`);
    add((s) => `aws_secret_access_key = ${s}`, pick(B64, 40));
    add(
      (s) => `git remote set-url origin https://x-access-token:${s}@github.com/o/r.git`,
      `ghp_${pick(ALNUM, 36)}`,
    );
    add((s) => `GITHUB_TOKEN=${s} gh pr list`, `github_pat_${pick(ALNUM, 22)}_${pick(ALNUM, 59)}`);
    add(
      (s) => `curl -H "x-api-key: ${s}" https://api.example.invalid/v1/messages`,
      `sk-ant-api03-${pick(ALNUM, 93)}AA`,
    );
    add((s) => `OPENAI_API_KEY=${s}`, `sk-proj-${pick(ALNUM, 74)}T3BlbkFJ${pick(ALNUM, 74)}`);
    add(
      (s) => `SLACK_BOT_TOKEN="${s}"`,
      `xoxb-${pick('0123456789', 12)}-${pick('0123456789', 13)}-${pick(ALNUM, 24)}`,
    );
    add((s) => `//registry.example.invalid/:_authToken=${s}`, `npm_${pick(ALNUM, 36)}`);
    add((s) => `const maps = new Client({ key: '${s}' })`, `AIza${pick(`${ALNUM}_-`, 35)}`);
    add((s) => `stripe.api_key = "${s}"`, `sk_live_${pick(ALNUM, 24)}`);
    add((s) => `DATABASE_URL=postgres://app:${s}@db.internal:5432/app`, pick(ALNUM, 14));
    add((s) => `mongodb+srv://admin:${s}@cluster0.example.mongodb.net/test`, pick(ALNUM, 12));
    add((s) => `git clone https://deploy:${s}@git.example.invalid/team/repo.git`, pick(ALNUM, 16));
    add((s) => `DB_PASSWORD=${s}`, `${pick(ALNUM, 10)}!9`);
    add((s) => `{"client_secret": "${s}", "client_id": "app"}`, pick(ALNUM, 32));
    add((s) => `SESSION_SECRET=${s}`, pick(`${ALNUM}-_`, 40));
    add((s) => `Authorization: Bearer ${s}`, pick(`${ALNUM}-._`, 48));
    add((s) => `HF_TOKEN=${s}`, `hf_${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 34)}`);
    add((s) => `token: ${s}`, `glpat-${pick(`${ALNUM}_-`, 20)}`);
    add(
      (s) => `cookie: session=${s}`,
      `eyJ${pick(`${ALNUM}_-`, 20)}.eyJ${pick(`${ALNUM}_-`, 40)}.${pick(`${ALNUM}_-`, 43)}`,
    );
    const body = Array.from({ length: 8 }, () => pick(B64, 64)).join('\n');
    add(
      (s) => `cat id_rsa\n${s}\n`,
      `-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----`,
    );
    add((s) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${s}\n-----END OPENSSH PRIVATE KEY-----`, body);
  }
  return out;
}

export function nearMisses(): string[] {
  const out: string[] = [];
  for (let i = 0; i < 10; i++) {
    const sha = pick(HEX, 40);
    const uuid = `${pick(HEX, 8)}-${pick(HEX, 4)}-4${pick(HEX, 3)}-a${pick(HEX, 3)}-${pick(HEX, 12)}`;
    out.push(
      `commit ${sha}\nAuthor: someone`,
      `git checkout ${sha.slice(0, 7)} && git log ${sha}`,
      `sha256sum: ${pick(HEX, 64)}  dist/app.tar.gz`,
      `"integrity": "sha512-${pick(B64, 86)}=="`,
      `session ${uuid} resumed`,
      `{"uuid": "${uuid}", "parentUuid": "${uuid}"}`,
      `![shot](data:image/png;base64,${pick(B64, 400)}=)`,
      `"data": "${pick(B64, 600)}"`,
      `const token = await getToken(config.apiKey);`,
      `password: process.env.DB_PASSWORD`,
      `API_KEY=\${API_KEY}`,
      `SECRET_KEY=changeme`,
      `"max_tokens": 4096, "input_tokens": 1532, "tokenizer": "cl100k_base"`,
      `apiKey: string; token?: string | undefined`,
      `const password_min_length = 12`,
      `etag: W/"${pick(HEX, 32)}"`,
      `npm i left-pad@1.3.0 && node --version`,
      `docker pull ghcr.io/org/image@sha256:${pick(HEX, 64)}`,
      `https://example.com/docs/${pick(ALNUM, 20)}/page?id=${pick(HEX, 24)}`,
      `The token count was 12000 tokens, well under the limit.`,
    );
  }
  return out;
}
