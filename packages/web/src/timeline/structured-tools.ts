// Tools whose input and answer have a shape of their own, read into what a person wants to see: the
// plan ExitPlanMode proposed and whether it was approved, the questions AskUserQuestion asked with
// their options and the answers given, and which server an MCP call went to. Pure: no DOM.
import { field, type Item, isErrorResult, isObject, obj, textOf } from './item.js';

/** `mcp__<server>__<tool>`, the name Claude Code and Codex give a tool an MCP server provides. */
const MCP_NAME = /^mcp__(.+?)__(.+)$/;

/** The server and tool of an MCP tool's name; undefined for any other name. */
export function mcpName(name: string | undefined): { server: string; tool: string } | undefined {
  const m = name === undefined ? null : MCP_NAME.exec(name);
  return m ? { server: m[1]!, tool: m[2]! } : undefined;
}

/** What a generic result's output says, as text (image blocks as their notes). */
export function resultOutputText(result: Item | undefined): string | undefined {
  const generic = result ? obj(result, 'result') : undefined;
  if (!generic) return undefined;
  const output = generic.output ?? generic.content;
  if (isObject(output) && Array.isArray(output.content)) return textOf(output.content);
  return textOf(output);
}

// --- ExitPlanMode ---

export type PlanDecision = 'approved' | 'rejected' | 'pending' | 'unknown';

/** The plan an ExitPlanMode call proposed, as Markdown; undefined when the call holds none (newer
 * versions keep it in a file, and the call's input is empty). */
export function planText(call: Item): string | undefined {
  const plan = obj(call, 'input')?.plan ?? field(call, 'plan');
  return typeof plan === 'string' && plan.trim() !== '' ? plan : undefined;
}

// How Claude Code words an approval ("User has approved your plan…", "User has approved exiting plan
// mode…") and a refusal ("The user doesn't want to proceed with this tool use…").
const APPROVED = /^\s*User has approved/i;
const REJECTED = /doesn't want to proceed|rejected|denied/i;

/** Whether the person approved the plan, by the call's result. */
export function planDecision(result: Item | undefined): PlanDecision {
  if (!result) return 'pending';
  const text = resultOutputText(result) ?? '';
  if (APPROVED.test(text)) return 'approved';
  if (isErrorResult(result) || REJECTED.test(text)) return 'rejected';
  return 'unknown';
}

// --- AskUserQuestion ---

export interface QuestionOption {
  readonly label: string;
  readonly description?: string;
}

export interface Question {
  readonly question: string;
  readonly header?: string;
  readonly options: readonly QuestionOption[];
  readonly multiSelect: boolean;
}

/** The questions an AskUserQuestion call asked; undefined when its input has another shape. */
export function questionsOf(call: Item): Question[] | undefined {
  const list = obj(call, 'input')?.questions;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const out: Question[] = [];
  for (const q of list) {
    if (!isObject(q) || typeof q.question !== 'string') return undefined;
    const options: QuestionOption[] = [];
    if (Array.isArray(q.options))
      for (const o of q.options) {
        if (isObject(o) && typeof o.label === 'string')
          options.push(
            typeof o.description === 'string'
              ? { label: o.label, description: o.description }
              : { label: o.label },
          );
        else if (typeof o === 'string') options.push({ label: o });
      }
    out.push({
      question: q.question,
      ...(typeof q.header === 'string' ? { header: q.header } : {}),
      options,
      multiSelect: q.multiSelect === true,
    });
  }
  return out;
}

/**
 * The answer given to each question, read from the result's text, which Claude Code writes as
 * `User has answered your questions: "<question>"="<answer>", "<question>"="<answer>". You can now …`.
 * Questions are found by their own text, so quotes inside a question or an answer do not confuse it.
 */
export function answersOf(
  questions: readonly Question[],
  resultText: string | undefined,
): Map<string, string> {
  const answers = new Map<string, string>();
  if (resultText === undefined) return answers;
  const starts = questions
    .map((q) => ({ q, at: resultText.indexOf(`"${q.question}"="`) }))
    .filter((s) => s.at >= 0)
    .sort((a, b) => a.at - b.at);
  for (const [i, { q, at }] of starts.entries()) {
    const from = at + q.question.length + 4;
    const next = starts[i + 1]?.at ?? resultText.length;
    // The answer runs to the closing quote before the next question (`", "`) or the closing words.
    const span = resultText.slice(from, next);
    const end = i + 1 < starts.length ? span.lastIndexOf('"') : closingQuote(span);
    answers.set(q.question, end >= 0 ? span.slice(0, end) : span);
  }
  return answers;
}

/** Where the last answer's closing quote is: before `. You can now`, else the last quote. */
function closingQuote(span: string): number {
  const words = span.search(/"\.\s*You can now/);
  return words >= 0 ? words : span.lastIndexOf('"');
}

/** Whether an option is among those a person chose (several when the question allowed it). */
export function isChosen(option: QuestionOption, answer: string | undefined, multiSelect: boolean): boolean {
  if (answer === undefined) return false;
  if (answer === option.label) return true;
  return multiSelect && answer.split(/,\s*/).includes(option.label);
}

// --- MCP results ---

/** A result's JSON, indented, when its text is one JSON object or array; undefined otherwise. */
export function resultJson(text: string | undefined): string | undefined {
  const t = text?.trim();
  if (!t || !(t.startsWith('{') || t.startsWith('['))) return undefined;
  try {
    const value: unknown = JSON.parse(t);
    return typeof value === 'object' && value !== null ? JSON.stringify(value, null, 2) : undefined;
  } catch {
    return undefined;
  }
}
