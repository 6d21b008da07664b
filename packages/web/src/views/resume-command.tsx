// Beside Continue: the command that resumes the session in its agent's own CLI, with a button that
// copies it. What is copied is the command itself; what is drawn shows invisible characters a
// folder's name may hold as code points, so the line cannot read as something it is not.
import { useState } from 'preact/hooks';
import { shownText } from '../display.js';
import { resumeCommand } from '../session/resume-command.js';

export function ResumeCommand({ agent, sid, cwd }: { agent: string; sid: string; cwd: string | undefined }) {
  const [copied, setCopied] = useState<'copied' | 'failed' | undefined>(undefined);
  const command = resumeCommand(agent, sid, cwd);
  if (command === undefined) return null;
  const word = copied === 'copied' ? 'copied' : copied === 'failed' ? 'copy failed' : 'copy';
  return (
    <span class="resume-command">
      <span class="muted small">resume in a terminal:</span>{' '}
      <code class="resume-line">{shownText(command)}</code>{' '}
      <button
        type="button"
        class="small resume-copy"
        title="copy the command that resumes this session in its own CLI"
        aria-label={`${word}: the resume command`}
        onClick={() => {
          const done = navigator.clipboard?.writeText(command);
          if (!done) return setCopied('failed');
          void done.then(
            () => setCopied('copied'),
            () => setCopied('failed'),
          );
          setTimeout(() => setCopied(undefined), 1500);
        }}
      >
        {word}
        <span class="resume-narrow"> the resume command</span>
      </button>
    </span>
  );
}
