// Permission rules cairn remembers per workstation and project folder ("always allow this command
// in this project on this machine"), kept in cairn's own SQLite under $CAIRN_HOME and never in the
// agent's settings, and the step that answers an agent's permission request by them (and by
// config.json's) before a page is asked. A rule answers only on the workstation it was kept for:
// two machines (two people's, on a team's server) may hold the same folder path.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  type AppliedPermissionRule,
  matchPermissionRules,
  type PermissionRule,
  type PermissionRuleSuggestion,
  type PermissionRulesReply,
  parsePermissionRule,
  permissionRulesOfConfig,
  type RememberedPermissionRule,
  type RuleEffect,
  type RuleToolCall,
  suggestPermissionRules,
} from '@cairn/protocol';
import { ownerOnlyFile } from '@cairn/runner/owner-only';
import Database from 'better-sqlite3';
import { LOCAL_WORKSTATION } from '../drive/local-drive.js';

/** Where a remembered rule says it came from, on the line that names it. */
export const PROJECT_RULE_SOURCE = 'project';
const CONFIG_RULE_SOURCE = 'config.json';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS permission_rules (
  id TEXT PRIMARY KEY, workstation TEXT NOT NULL, project_path TEXT NOT NULL, effect TEXT NOT NULL,
  rule TEXT NOT NULL, created_at INTEGER NOT NULL, UNIQUE (workstation, project_path, effect, rule)
);
`;

/**
 * A file from before rules were kept per workstation: its rules were the daemon's own machine's, so
 * they become the local workstation's (a machine that connected from elsewhere is asked again).
 */
const BY_WORKSTATION = `
ALTER TABLE permission_rules RENAME TO permission_rules_by_folder;
${SCHEMA}
INSERT INTO permission_rules (id, workstation, project_path, effect, rule, created_at)
  SELECT id, '${LOCAL_WORKSTATION}', project_path, effect, rule, created_at FROM permission_rules_by_folder
  ORDER BY rowid;
DROP TABLE permission_rules_by_folder;
`;

interface RuleDb {
  id: string;
  workstation: string;
  project_path: string;
  effect: RuleEffect;
  rule: string;
  created_at: number;
}

/** An option the agent offers for a permission request. */
export interface RequestOption {
  readonly optionId: string;
  readonly kind: string;
}

export interface RuleDecision {
  readonly optionId: string;
  readonly applied: AppliedPermissionRule;
}

export class PermissionRuleStore {
  private readonly db: Database.Database;

  /**
   * `storePath` is the SQLite file (the chat's own is fine: the table is this store's alone);
   * `cairnHome` holds the config.json whose `permissions` also apply, read again at each request
   * so an edit counts without a restart.
   */
  constructor(
    storePath: string,
    private readonly cairnHome: string | undefined,
    private readonly log: (line: string) => void = () => {},
  ) {
    if (storePath !== ':memory:') mkdirSync(dirname(storePath), { recursive: true, mode: 0o700 });
    this.db = new Database(ownerOnlyFile(storePath));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    const columns = this.db.pragma('table_info(permission_rules)') as { name: string }[];
    if (columns.length > 0 && !columns.some((c) => c.name === 'workstation'))
      this.db.transaction(() => this.db.exec(BY_WORKSTATION))();
    else this.db.exec(SCHEMA);
  }

  /** Every remembered rule, by workstation and project folder, oldest first. */
  list(): RememberedPermissionRule[] {
    const rows = this.db
      .prepare('SELECT * FROM permission_rules ORDER BY workstation, project_path, created_at, rowid')
      .all() as RuleDb[];
    return rows.map(toRemembered);
  }

  /** What the settings page shows: the remembered rules, and config.json's beside them. */
  reply(): PermissionRulesReply {
    const config = this.configRules();
    return {
      rules: this.list(),
      config: {
        rules: config.rules.map((r) => ({ effect: r.effect, rule: r.text })),
        ...(config.problem === undefined ? {} : { problem: config.problem }),
      },
    };
  }

  /** Keeps a rule for a project folder on a workstation; the one already kept when it is there. */
  remember(
    workstation: string,
    projectPath: string,
    effect: RuleEffect,
    text: string,
  ): RememberedPermissionRule {
    const parsed = parsePermissionRule(text, effect, PROJECT_RULE_SOURCE);
    if (!parsed.ok) throw new RuleRefused(parsed.error);
    const rule = parsed.rule.text;
    this.db
      .prepare(
        `INSERT OR IGNORE INTO permission_rules (id, workstation, project_path, effect, rule, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(randomUUID(), workstation, projectPath, effect, rule, Date.now());
    const row = this.db
      .prepare(
        'SELECT * FROM permission_rules WHERE workstation = ? AND project_path = ? AND effect = ? AND rule = ?',
      )
      .get(workstation, projectPath, effect, rule) as RuleDb;
    return toRemembered(row);
  }

  /** Forgets a rule; false when there was none by that id. */
  revoke(id: string): boolean {
    return this.db.prepare('DELETE FROM permission_rules WHERE id = ?').run(id).changes > 0;
  }

  /**
   * The answer a rule gives to a permission request in this project folder on this workstation, if
   * one covers the call: the rules remembered there and config.json's together, a deny beating an
   * allow. An allow picks the agent's one-time option (so cairn's rule never becomes a standing rule
   * inside the agent), a deny its one-time rejection; a request with no such option is left to the
   * page.
   */
  decide(
    workstation: string,
    projectPath: string,
    call: RuleToolCall,
    options: readonly RequestOption[],
  ): RuleDecision | undefined {
    const rules = [...this.projectRules(workstation, projectPath), ...this.configRules().rules];
    const rule = matchPermissionRules(rules, call, projectPath);
    if (!rule) return undefined;
    const kinds = rule.effect === 'allow' ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
    const option = kinds.map((k) => options.find((o) => o.kind === k)).find((o) => o !== undefined);
    if (!option) return undefined;
    return {
      optionId: option.optionId,
      applied: { rule: rule.text, effect: rule.effect, source: rule.source },
    };
  }

  close(): void {
    this.db.close();
  }

  private projectRules(workstation: string, projectPath: string): PermissionRule[] {
    const rows = this.db
      .prepare(
        'SELECT * FROM permission_rules WHERE workstation = ? AND project_path = ? ORDER BY created_at, rowid',
      )
      .all(workstation, projectPath) as RuleDb[];
    return rows.flatMap((row) => {
      const parsed = parsePermissionRule(row.rule, row.effect, PROJECT_RULE_SOURCE);
      return parsed.ok ? [parsed.rule] : [];
    });
  }

  /** config.json's rules; none (and why) when the file does not read, which is logged, not fatal. */
  private configRules(): { rules: PermissionRule[]; problem?: string } {
    if (this.cairnHome === undefined) return { rules: [] };
    const path = join(this.cairnHome, 'config.json');
    let config: unknown;
    try {
      config = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { rules: [] };
      const problem = `${path} does not read: ${(error as Error).message}`;
      this.log(`chat: permission rules of ${problem}`);
      return { rules: [], problem };
    }
    const rules = permissionRulesOfConfig(config, CONFIG_RULE_SOURCE);
    if (rules.ok) return { rules: rules.rules };
    const problem = `${path}: ${rules.error}`;
    this.log(`chat: ${problem}`);
    return { rules: [], problem };
  }
}

/** A rule that is not one; its message says what is wrong with it. */
export class RuleRefused extends Error {}

function toRemembered(row: RuleDb): RememberedPermissionRule {
  return {
    id: row.id,
    workstation: row.workstation,
    projectPath: row.project_path,
    effect: row.effect,
    rule: row.rule,
    createdAt: row.created_at,
  };
}

/** The frame of a request a rule answered, and the option it chose; undefined when none did. */
export function ruleAnswer(
  rules: PermissionRuleStore,
  workstation: string,
  projectPath: string,
  toolCall: unknown,
  request: Record<string, unknown>,
):
  | { optionId: string; applied: AppliedPermissionRule; line: Record<string, unknown> & { type: string } }
  | undefined {
  const options = (Array.isArray(request.options) ? request.options : []) as RequestOption[];
  const decided = rules.decide(workstation, projectPath, asToolCall(toolCall), options);
  if (!decided) return undefined;
  const shown = (request.toolCall ?? {}) as { id?: string; title?: string; kind?: string };
  return {
    ...decided,
    line: {
      type: 'permission_rule_applied',
      requestId: String(request.requestId),
      toolCall: {
        id: String(shown.id ?? ''),
        title: String(shown.title ?? ''),
        ...(typeof shown.kind === 'string' ? { kind: shown.kind } : {}),
      },
      optionId: decided.optionId,
      applied: decided.applied,
    },
  };
}

/** The rules a card offers to remember for an agent's tool call. */
export function suggestionsFor(toolCall: unknown, projectPath: string): PermissionRuleSuggestion[] {
  return suggestPermissionRules(asToolCall(toolCall), projectPath);
}

function asToolCall(value: unknown): RuleToolCall {
  return typeof value === 'object' && value !== null ? (value as RuleToolCall) : {};
}
