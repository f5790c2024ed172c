import { createInterface } from 'node:readline/promises';

export interface ApprovalRequest {
  taskId: string;
  tool: string;
  /** What would run, e.g. the command line. */
  summary: string;
  rule: string;
  reason: string;
  /** Every rule that asked (the deciding one first); `rule` alone when absent. */
  rules?: string[];
}

/**
 * The command as text a terminal cannot reinterpret: control characters (an escape sequence or a
 * carriage return could paint `ls` over `rm -rf ~`), format characters (bidirectional overrides,
 * zero-width spaces) and line separators are shown as escapes.
 */
export function printable(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (c) => (c === '\n' ? '\\n' : c === '\t' ? '\\t' : `\\u{${c.codePointAt(0)!.toString(16)}}`));
}

export interface ApprovalAnswer {
  approved: boolean;
  /** How the answer came: a person, a standing "always" for the rule, or no one to ask. */
  via: 'interactive' | 'always' | 'non_interactive';
}

export interface Approver {
  ask(request: ApprovalRequest): Promise<ApprovalAnswer>;
}

/** CI and any run without a terminal: denied at once, never waiting. */
export const nonInteractiveApprover: Approver = {
  async ask() {
    return { approved: false, via: 'non_interactive' };
  },
};

/**
 * Asks on the terminal: [o]nce, [d]eny, [a]lways for this rule. Prompts are serialized so that
 * concurrent tasks never interleave questions.
 */
export class TerminalApprover implements Approver {
  private readonly alwaysRules = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stderr,
  ) {}

  ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const answer = this.queue.then(() => this.prompt(request));
    this.queue = answer.catch(() => undefined);
    return answer;
  }

  private async prompt(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const rules = request.rules && request.rules.length > 0 ? request.rules : [request.rule];
    if (rules.every((rule) => this.alwaysRules.has(rule))) return { approved: true, via: 'always' };
    const rl = createInterface({ input: this.input, output: this.output, terminal: false });
    try {
      this.output.write(
        `\n[approval] task ${printable(request.taskId)} wants ${printable(request.tool)}: ${printable(request.summary)}\n` +
          `  rule ${printable(request.rule)}: ${printable(request.reason)}\n` +
          (rules.length > 1 ? `  it also asks under: ${rules.slice(1).map(printable).join(', ')}\n` : ''),
      );
      const reply = (await rl.question(`  approve [o]nce, [d]eny, [a]lways for ${rules.length > 1 ? 'these rules' : 'this rule'}? `)).trim().toLowerCase();
      if (reply === 'a' || reply === 'always') {
        for (const rule of rules) this.alwaysRules.add(rule);
        return { approved: true, via: 'interactive' };
      }
      return { approved: reply === 'o' || reply === 'once' || reply === 'y' || reply === 'yes', via: 'interactive' };
    } finally {
      rl.close();
    }
  }
}

/** A terminal on both ends and not CI: only then is anyone asked. */
export function defaultApprover(): Approver {
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY) && !process.env['CI'];
  return interactive ? new TerminalApprover() : nonInteractiveApprover;
}
