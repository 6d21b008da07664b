// What a refused prompt says: an agent's error keeps the words its data carries, whether text or an
// object with a message and a kind, as Codex and Claude Code send them when a usage or rate limit
// stops a turn (seen on the fake model answering 429).
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { refusalOf } from '../src/acp-session.js';

describe('refusalOf', () => {
  it("keeps Codex's message and kind from the error's data", () => {
    const error = new acp.RequestError(-32603, 'Internal error', {
      message: 'Quota exceeded. Check your plan and billing details.',
      codexErrorInfo: 'usageLimitExceeded',
    });
    expect(refusalOf(error, [])).toEqual({
      message: 'Internal error: Quota exceeded. Check your plan and billing details. (usageLimitExceeded)',
      errorCode: -32603,
    });
  });

  it("adds Claude Code's kind to a message that already says the rest", () => {
    const error = new acp.RequestError(
      -32603,
      'Internal error: API Error: Request rejected (429) · This request would exceed the rate limit.',
      { errorKind: 'rate_limit' },
    );
    expect(refusalOf(error, []).message).toBe(
      'Internal error: API Error: Request rejected (429) · This request would exceed the rate limit. (rate_limit)',
    );
  });

  it("keeps Qwen Code's details, the provider's status and words", () => {
    const error = new acp.RequestError(-32603, 'Internal error', {
      details: "400 Invalid 'messages': empty array.",
    });
    expect(refusalOf(error, []).message).toBe("Internal error: 400 Invalid 'messages': empty array.");
  });

  it('keeps text data, once', () => {
    expect(refusalOf(new acp.RequestError(-32603, 'Internal error', 'disk full'), []).message).toBe(
      'Internal error: disk full',
    );
    expect(
      refusalOf(new acp.RequestError(-32603, 'Internal error: disk full', 'disk full'), []).message,
    ).toBe('Internal error: disk full');
    expect(refusalOf(new acp.RequestError(429, 'Resource has been exhausted'), [])).toEqual({
      message: 'Resource has been exhausted',
      errorCode: 429,
    });
  });
});
