// bin/main.ts: the one CLI, `cookwala`, dispatching to each part's command module
// (sequencer/cli.ts, witness/cli.ts, executor/cli.ts, monitor/cli.ts, …; docs/design.md §2, §12). Parts are imported
// lazily so `cookwala verify` never loads fastify or libp2p. An unknown subcommand or bad flags
// print the usage and exit 2.

type Run = (argv: string[]) => Promise<number>;
interface Command {
  summary: string;
  load: () => Promise<Run>;
}

const COMMANDS: Record<string, Command> = {
  init: {
    summary: 'create a data dir: sequencer key, operator token, config, log',
    load: async () => (await import('../sequencer/cli-init.ts')).run,
  },
  sequencer: { summary: 'run the sequencer (ingest, checkpoints, HTTP API)', load: async () => (await import('../sequencer/cli.ts')).run },
  checkpoint: {
    summary: 'show (or wait for) the published checkpoint and who cosigned it',
    load: async () => (await import('../sequencer/cli-checkpoint.ts')).run,
  },
  export: { summary: 'export a log as an audit bundle (NDJSON)', load: async () => (await import('../sequencer/cli-export.ts')).run },
  proof: {
    summary: 'write one event with its inclusion proof and checkpoint',
    load: async () => (await import('../sequencer/cli-proof.ts')).run,
  },
  witness: { summary: 'run a witness (libp2p cosigner)', load: async () => (await import('../witness/cli.ts')).run },
  executor: { summary: 'run a device executor or the simulator', load: async () => (await import('../executor/cli.ts')).run },
  verify: { summary: 'verify an audit bundle offline', load: async () => (await import('../auditor/verify.ts')).run },
  'verify-event': { summary: 'verify one event proof offline', load: async () => (await import('../auditor/verify-event.ts')).run },
  'verify-fork': { summary: 'check a ForkProof offline', load: async () => (await import('../auditor/verify-fork.ts')).run },
  monitor: {
    summary: 'follow logs continuously: checkpoints, consistency, new entries, split views',
    load: async () => (await import('../monitor/cli.ts')).run,
  },
  tiles: {
    summary: "write a log's checkpoint and tlog-tiles as static files (--entries: a Cookwala log's whole read path; --follow)",
    load: async () => (await import('../monitor/tiles-cli.ts')).run,
  },
  policy: {
    summary: 'witness policy: add-witness, show (and tlog-policy text: to-tlog, from-tlog)',
    load: async () => (await import('./policy.ts')).run,
  },
  keys: {
    summary: 'keys for offline use (fetch, show); device keys of a log (register, revoke, rotate)',
    // register/revoke/rotate talk to a sequencer with the operator token: not an auditor's command.
    load: async () => async (argv) =>
      ['register', 'revoke', 'rotate'].includes(argv[0] ?? '')
        ? (await import('../sequencer/cli-keys.ts')).run(argv)
        : (await import('../auditor/keys.ts')).run(argv),
  },
  device: {
    summary: "a device maker's tools: keygen, sign, post, heartbeat, reveal",
    load: async () => (await import('../device/cli.ts')).run,
  },
  'verify-disclosure': {
    summary: 'check one revealed value against its logged, signed event offline',
    load: async () => (await import('../auditor/verify-disclosure.ts')).run,
  },
  conformance: { summary: 'run conformance vectors', load: async () => (await import('../conformance/cli.ts')).run },
  demo: { summary: 'the local demo network (what npm start runs)', load: async () => (await import('../demo/cli.ts')).run },
};

export function usage(): string {
  const w = Math.max(...Object.keys(COMMANDS).map((k) => k.length));
  const lines = Object.entries(COMMANDS).map(([k, c]) => `  ${k.padEnd(w)}  ${c.summary}`);
  return `usage: cookwala <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun \`cookwala <command> --help\` for a command's options.`;
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    process.stdout.write(usage() + '\n');
    return cmd === undefined ? 2 : 0;
  }
  const c = COMMANDS[cmd];
  if (!c) {
    process.stderr.write(`cookwala: unknown command '${cmd}'\n\n${usage()}\n`);
    return 2;
  }
  let run: Run;
  try {
    run = await c.load();
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ERR_MODULE_NOT_FOUND') {
      process.stderr.write(`cookwala ${cmd}: not built in this version (${err.message.split('\n')[0]})\n`);
      return 2;
    }
    throw e;
  }
  return run(rest);
}
