// `/api/permission-rules`: the settings page's view of the permission rules remembered per
// workstation and project. GET lists them (with config.json's, which are edited in that file), POST
// keeps one (for the daemon's own machine unless `workstation` names another), DELETE `?id=`
// revokes one.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAbsolute, resolve } from 'node:path';
import { LOCAL_WORKSTATION } from '../drive/local-drive.js';
import { isWorkstationName } from '../drive/tickets.js';
import type { PermissionRuleStore } from './permission-rule-store.js';
import { RuleRefused } from './permission-rule-store.js';

export async function permissionRulesApi(
  rules: PermissionRuleStore,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  body: () => Promise<Record<string, unknown>>,
): Promise<true> {
  switch (req.method) {
    case 'GET':
      return reply(res, 200, rules.reply());
    case 'POST': {
      const { projectPath, rule, effect = 'allow', workstation = LOCAL_WORKSTATION } = await body();
      if (typeof workstation !== 'string' || !isWorkstationName(workstation))
        return reply(res, 400, { error: 'workstation must be the name of a workstation, such as local' });
      if (typeof projectPath !== 'string' || !isAbsolute(projectPath))
        return reply(res, 400, { error: 'projectPath must be the absolute path of a project folder' });
      if (typeof rule !== 'string')
        return reply(res, 400, { error: 'rule must be a string such as Bash(npm test*)' });
      if (effect !== 'allow' && effect !== 'deny')
        return reply(res, 400, { error: 'effect must be allow or deny' });
      try {
        return reply(res, 200, { rule: rules.remember(workstation, resolve(projectPath), effect, rule) });
      } catch (error) {
        if (error instanceof RuleRefused) return reply(res, 400, { error: error.message });
        throw error;
      }
    }
    case 'DELETE': {
      const id = url.searchParams.get('id');
      if (!id) return reply(res, 400, { error: 'id is needed: the rule to revoke' });
      return rules.revoke(id)
        ? reply(res, 200, { ok: true })
        : reply(res, 404, { error: `no remembered rule ${id}` });
    }
    default:
      return reply(res, 405, { error: `${req.method} is not a method of /api/permission-rules` });
  }
}

function reply(res: ServerResponse, status: number, body: unknown): true {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
  return true;
}
