import { createInterface } from 'node:readline/promises';

export interface ApprovalRequest {
  taskId: string;
  tool: string;
  /** What would run, e.g. the command line. */
  summary: string;
  rule: string;
  reason: string;
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
    if (this.alwaysRules.has(request.rule)) return { approved: true, via: 'always' };
    const rl = createInterface({ input: this.input, output: this.output, terminal: false });
    try {
      this.output.write(
        `\n[approval] task ${request.taskId} wants ${request.tool}: ${request.summary}\n` +
          `  rule ${request.rule}: ${request.reason}\n`,
      );
      const reply = (await rl.question('  approve [o]nce, [d]eny, [a]lways for this rule? ')).trim().toLowerCase();
      if (reply === 'a' || reply === 'always') {
        this.alwaysRules.add(request.rule);
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
