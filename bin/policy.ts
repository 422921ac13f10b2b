// bin/policy.ts: `cookwala policy SUBCOMMAND`, one dispatcher for everything done to a witness
// policy (docs/design.md §4). The operator's subcommands live beside the sequencer's data
// directory (sequencer/cli-policy.ts): `add-witness`, `show`. The C2SP tlog-policy conversions,
// `to-tlog` and `from-tlog`, are the auditor's and live in auditor/policy-tlog.ts. Each
// subcommand prints its own help; an unknown one gets "did you mean" and exit 2.

type Run = (argv: string[]) => Promise<number>;

const SUBCOMMANDS: Record<string, { summary: string; load: () => Promise<Run> }> = {
  'add-witness': {
    summary: "add a witness (its witness-info.json or URL) to a sequencer's policy",
    load: async () => (await import('../sequencer/cli-policy.ts')).runAddWitness,
  },
  show: {
    summary: 'print a witness policy; says when a log is unwitnessed',
    load: async () => (await import('../sequencer/cli-policy.ts')).runShow,
  },
  // The tlog-policy conversion, the auditor's (auditor/policy-tlog.ts).
  'to-tlog': {
    summary: 'write a policy as C2SP tlog-policy text',
    load: async () => (await import('../auditor/policy-tlog.ts')).runToTlog,
  },
  'from-tlog': {
    summary: 'read C2SP tlog-policy text into a policy',
    load: async () => (await import('../auditor/policy-tlog.ts')).runFromTlog,
  },
};

export function policyUsage(): string {
  const w = Math.max(...Object.keys(SUBCOMMANDS).map((k) => k.length));
  return `usage: cookwala policy <subcommand> [options]\n\n${Object.entries(SUBCOMMANDS)
    .map(([k, c]) => `  ${k.padEnd(w)}  ${c.summary}`)
    .join('\n')}\n\nRun \`cookwala policy <subcommand> --help\` for its options.`;
}

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(policyUsage() + '\n');
    return sub === undefined ? 2 : 0;
  }
  const c = SUBCOMMANDS[sub];
  if (!c) {
    const { didYouMean } = await import('../witness/cli-usage.ts');
    const guess = didYouMean(sub, Object.keys(SUBCOMMANDS));
    process.stderr.write(`cookwala policy: unknown subcommand '${sub}'${guess ? `, did you mean ${guess}?` : ''}\n\n${policyUsage()}\n`);
    return 2;
  }
  let r: Run;
  try {
    r = await c.load();
  } catch (e) {
    if (
      (e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' ||
      (typeof (e as { message?: string }).message === 'string' && /Cannot find module/.test((e as Error).message))
    ) {
      process.stderr.write(`cookwala policy ${sub}: not built in this version\n`);
      return 2;
    }
    throw e;
  }
  if (typeof r !== 'function') {
    process.stderr.write(`cookwala policy ${sub}: not built in this version\n`);
    return 2;
  }
  return r(rest);
}
