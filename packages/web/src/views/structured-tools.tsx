// The bodies of tools whose input and answer have a shape of their own: ExitPlanMode's plan as Markdown
// with whether it was approved, AskUserQuestion's questions with their options and the answers, an MCP
// call's result as folded, highlighted JSON beside any images it returned.
import type { JSX } from 'preact';
import { Code } from '../highlight/code.js';
import { resultImagesIn, resultParts } from '../timeline/images.js';
import { firstLine, type Item, str, toolName } from '../timeline/item.js';
import {
  answersOf,
  isChosen,
  mcpName,
  type PlanDecision,
  planDecision,
  planText,
  questionsOf,
  resultJson,
  resultOutputText,
} from '../timeline/structured-tools.js';
import { Fold, type FoldState, Markdown, TextBlock } from './fold.js';
import { RecordImages } from './images.js';
import type { Where } from './raw.js';

/** A tool's name as its badge shows it: `server · tool` for an MCP tool. */
export function ToolName({ name }: { name: string }) {
  const mcp = mcpName(name);
  if (!mcp) return <>{name}</>;
  return (
    <span class="mcp-name" title={name}>
      <span class="mcp-server">{mcp.server}</span> · <span class="mcp-tool">{mcp.tool}</span>
    </span>
  );
}

const DECISION_WORDS: Record<PlanDecision, string> = {
  approved: 'approved',
  rejected: 'not approved',
  pending: 'awaiting a decision',
  unknown: 'decision not recorded',
};

/** A structured call's one-line summary, or undefined for any other tool. */
export function structuredSummary(call: Item): string | undefined {
  const name = toolName(call);
  if (name === 'ExitPlanMode') {
    const plan = planText(call);
    return plan ? firstLine(plan.replace(/^#+\s*/, ''), 160) : 'plan';
  }
  if (name === 'AskUserQuestion') {
    const questions = questionsOf(call);
    if (!questions) return undefined;
    const first = firstLine(questions[0]!.question, 160);
    return questions.length > 1 ? `${first} (+${questions.length - 1} more)` : first;
  }
  return undefined;
}

/** What a structured call's result says in one line, or undefined for any other tool. */
export function structuredResultSummary(call: Item, result: Item | undefined): string | undefined {
  const name = toolName(call);
  if (name === 'ExitPlanMode') return DECISION_WORDS[planDecision(result)];
  if (name === 'AskUserQuestion' && result) {
    const questions = questionsOf(call);
    if (!questions) return undefined;
    const n = answersOf(questions, resultOutputText(result)).size;
    return `${n} of ${questions.length} answered`;
  }
  return undefined;
}

/** The body of a structured call, or undefined when the call is not one (or not in a shape read here). */
export function structuredBody(
  call: Item,
  result: Item | undefined,
  key: string,
  folds: FoldState | undefined,
  where: Where,
): JSX.Element | undefined {
  const name = toolName(call);
  if (name === 'ExitPlanMode') return <PlanBody call={call} result={result} />;
  if (name === 'AskUserQuestion') {
    const questions = questionsOf(call);
    return questions ? <QuestionsBody call={call} result={result} /> : undefined;
  }
  if (mcpName(name) && result)
    return <McpResult result={result} id={`${key}:json`} folds={folds} where={where} />;
  return undefined;
}

function PlanBody({ call, result }: { call: Item; result: Item | undefined }) {
  const plan = planText(call);
  const decision = planDecision(result);
  const said = resultOutputText(result);
  return (
    <div class="plan-body">
      <div class="plan-decision">
        <span class={`badge plan-${decision}`}>Plan {DECISION_WORDS[decision]}</span>
      </div>
      {plan ? (
        <Markdown text={plan} className="plan-text" />
      ) : (
        <p class="muted small">The call holds no plan: this version of the agent kept it in a file.</p>
      )}
      {said && decision !== 'approved' && <TextBlock text={said} className="output" />}
    </div>
  );
}

function QuestionsBody({ call, result }: { call: Item; result: Item | undefined }) {
  const questions = questionsOf(call) ?? [];
  const said = resultOutputText(result);
  const answers = answersOf(questions, said);
  return (
    <div class="questions">
      {questions.map((q, i) => {
        const answer = answers.get(q.question);
        const chosen = q.options.some((o) => isChosen(o, answer, q.multiSelect));
        return (
          <section key={i} class="question" aria-label={`question ${i + 1}`}>
            <p class="question-text">
              {q.header && <span class="type-badge">{q.header}</span>} {q.question}
              {q.multiSelect && <span class="muted small"> (several may be chosen)</span>}
            </p>
            {q.options.length > 0 && (
              <ul class="question-options">
                {q.options.map((o, j) => {
                  const on = isChosen(o, answer, q.multiSelect);
                  return (
                    <li key={j} class={on ? 'option chosen' : 'option'}>
                      <span class="option-mark" aria-hidden="true">
                        {on ? '●' : '○'}
                      </span>{' '}
                      <span class="option-label">{o.label}</span>
                      {on && <span class="visually-hidden"> (chosen)</span>}
                      {o.description && <span class="muted small"> — {o.description}</span>}
                    </li>
                  );
                })}
              </ul>
            )}
            <p class="question-answer">
              {answer === undefined ? (
                <span class="muted small">{result ? 'no answer recorded' : 'not answered yet'}</span>
              ) : (
                <>
                  <span class="muted small">{chosen ? 'answer:' : 'answered in their own words:'}</span>{' '}
                  <span class="answer-text">{answer}</span>
                </>
              )}
            </p>
          </section>
        );
      })}
      {result && answers.size === 0 && said && <TextBlock text={said} className="output" />}
    </div>
  );
}

function McpResult({
  result,
  id,
  folds,
  where,
}: {
  result: Item;
  id: string;
  folds: FoldState | undefined;
  where: Where;
}) {
  const { texts, images } = resultParts(result);
  return (
    <div class="mcp-result">
      {texts.map((text, i) => {
        const json = resultJson(text);
        if (json === undefined)
          return text.trim() === '' ? null : <TextBlock key={i} text={text} className="output" />;
        const lines = json.split('\n').length;
        const label = <span class="muted">JSON result · {lines} lines</span>;
        const code = () => <Code text={json} language="json" className="output" />;
        return folds ? (
          <Fold key={i} id={`${id}:${i}`} folds={folds} className="mcp-json" label={label}>
            {code}
          </Fold>
        ) : (
          <div key={i}>{code()}</div>
        );
      })}
      {images.length > 0 && (
        <RecordImages
          where={where}
          item={result}
          notes={images}
          pick={(record) => resultImagesIn(record, str(result, 'tool_use_id'))}
          label="result image"
        />
      )}
    </div>
  );
}
