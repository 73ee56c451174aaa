// The switch of docs/takeover.md as the takeover run executes it: the `sh` block under "## 2. The
// switch", cut into its settings (the lines before step a) and its steps (`# a. …`, `# b. …`), so the
// run follows the document itself and a change of the document changes the run. Pure.

export interface DocStep {
  /** The step's letter. */
  id: string;
  /** Its first comment line, without `# a. `. */
  title: string;
  /** Every line of the step, comments included: run as one bash script. */
  script: string;
}

export interface SwitchProcedure {
  /** The variable settings before step a (NS, RELEASE, FLAGS): run once, their values passed to every step. */
  settings: string;
  steps: DocStep[];
}

const SWITCH_HEADING = /^## 2\. The switch\s*$/m;
const STEP = /^# ([a-z])\. (.*)$/;

/** The switch's settings and steps; throws when the document has no such block or no step. */
export function switchProcedure(markdown: string): SwitchProcedure {
  const heading = SWITCH_HEADING.exec(markdown);
  if (!heading) throw new Error('docs/takeover.md: no "## 2. The switch" section');
  const rest = markdown.slice(heading.index);
  const open = rest.indexOf('```sh\n');
  if (open < 0) throw new Error('docs/takeover.md: the switch has no ```sh block');
  const body = rest.slice(open + '```sh\n'.length);
  const close = body.indexOf('\n```');
  const lines = (close < 0 ? body : body.slice(0, close)).split('\n');
  const settings: string[] = [];
  const steps: { id: string; title: string; lines: string[] }[] = [];
  for (const line of lines) {
    const m = STEP.exec(line);
    if (m) steps.push({ id: m[1]!, title: m[2]!.trim(), lines: [line] });
    else if (steps.length) steps[steps.length - 1]!.lines.push(line);
    else settings.push(line);
  }
  if (!steps.length) throw new Error('docs/takeover.md: the switch has no "# a. …" step');
  return { settings: settings.join('\n'), steps: steps.map((s) => ({ id: s.id, title: s.title, script: s.lines.join('\n') })) };
}

/** The commands of a script: comment and blank lines dropped, `\` continuations joined. */
export function commandsOf(script: string): string[] {
  const out: string[] = [];
  let pending = '';
  for (const raw of script.split('\n')) {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    out.push(`${pending}${line}`.trim());
    pending = '';
  }
  if (pending) out.push(pending.trim());
  return out;
}

/** `helm install kaito-ts …`: the one command the local run cannot run as written (no image runs on kwok nodes). */
export const INSTALL_KAITO_TS = /^helm install kaito-ts\s/;
/** Waiting for kaito-ts's Deployment: the run waits for its local process instead. */
export const ROLLOUT_KAITO_TS = /^kubectl .*rollout status deploy(ment)?\/kaito-ts\b/;

/**
 * The script the run executes for a step: as written, except that `helm install kaito-ts` renders the
 * same release (`helm template`: the chart and its values are checked, its Deployment's flags read) and
 * the wait for kaito-ts's rollout is left to the run. `installs` says whether the step installs kaito-ts.
 */
export function localScript(step: DocStep): { script: string; installs: boolean } {
  let installs = false;
  const lines = commandsOf(step.script).flatMap((c) => {
    if (INSTALL_KAITO_TS.test(c)) {
      installs = true;
      return [c.replace(/^helm install /, 'helm template ')];
    }
    return ROLLOUT_KAITO_TS.test(c) ? [] : [c];
  });
  return { script: lines.join('\n'), installs };
}
